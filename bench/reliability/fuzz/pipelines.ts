/**
 * Each surface's real read path from wire text to canonical events, as its backend runs it:
 * decode (the transport's frame decoding, or the subprocess backend's line reading), then
 * `parseSafely` with the surface's parser, then `normalizeSafely` with its normaliser, the
 * state threaded from frame to frame. Each frame's output is checked as it comes out.
 */
import { runLineValue } from "../../../src/backends/subprocess/run-line.js";
import type { Normalized } from "../../../src/events/build.js";
import type { CanonicalEvent, NativeOrigin } from "../../../src/events/canonical.js";
import { initialApiState, normalizeApiEvent } from "../../../src/events/normalize-api.js";
import { initialLegacyState, normalizeLegacyEvent } from "../../../src/events/normalize-legacy.js";
import {
  initialRunState,
  normalizeRunLine,
  runEnded,
  runStarted,
} from "../../../src/events/normalize-run.js";
import { initialV2State, normalizeV2Event } from "../../../src/events/normalize-v2.js";
import { type Normalizer, normalizeSafely } from "../../../src/events/safe-normalize.js";
import type { TurnState } from "../../../src/events/turn-state.js";
import { parseApiEvent } from "../../../src/opencode-protocol/api/events.js";
import type { Parsed } from "../../../src/opencode-protocol/common.js";
import { parseLegacyEvent } from "../../../src/opencode-protocol/legacy/events.js";
import { parseSafely } from "../../../src/opencode-protocol/parse-safely.js";
import { parseRunLine } from "../../../src/opencode-protocol/run/events.js";
import { parseV2Event } from "../../../src/opencode-protocol/v2/events.js";
import { streamFrameValue } from "../../../src/transport/stream-frame.js";
import { type FrameProblem, problemsOf } from "./checks.js";
import type { Surface } from "./seed-frames.js";

const SESSION = "ses_fuzz";
const SEEN_AT = 1_800_000_000_000;

/** One surface's read path, fresh state per sequence. */
export interface SurfacePipeline {
  /** Wire text to the value the parser receives (`undefined`: nothing to read, a blank line). */
  decode(text: string): unknown;
  /** A fresh reader: what a backend has when a stream (or a run) begins. */
  open(): SurfaceReader;
}

export interface SurfaceReader {
  /** Events of the start (the subprocess backend's `runStarted`), checked. */
  begin(): FrameProblem[];
  /** One decoded frame through parse and normalise; the problems its output has. */
  frame(value: unknown): FrameProblem[];
  /** One frame a client parsed already, through the normaliser. */
  parsed(parsed: Parsed<unknown>): FrameProblem[];
  /** Events of the end (the process's exit), checked. */
  end(): FrameProblem[];
  /** Canonical events made so far. */
  readonly events: number;
}

type SessionState = TurnState & { readonly sessionId: string };

interface StreamSpec<State extends SessionState, Native> {
  backend: NativeOrigin["backend"];
  initial: () => State;
  parse: (raw: unknown) => Parsed<Native>;
  normalize: Normalizer<State, Native>;
  begin?: (state: State) => Normalized<State>;
  end?: (state: State) => Normalized<State>;
}

class Reader<State extends SessionState, Native> implements SurfaceReader {
  #state: State;
  events = 0;

  constructor(private readonly spec: StreamSpec<State, Native>) {
    this.#state = spec.initial();
  }

  begin(): FrameProblem[] {
    return this.spec.begin === undefined ? [] : this.#apply(this.spec.begin(this.#state));
  }

  frame(value: unknown): FrameProblem[] {
    return this.parsed(parseSafely(this.spec.parse, value));
  }

  parsed(parsed: Parsed<unknown>): FrameProblem[] {
    // A client parsed it with this surface's parser: it is this surface's `Parsed`.
    const result = normalizeSafely(this.spec.normalize, this.#state, parsed as Parsed<Native>, {
      backend: this.spec.backend,
      seenAt: SEEN_AT,
    });
    this.#state = result.state;
    this.events += result.events.length;
    return problemsOf(parsed, result.events);
  }

  end(): FrameProblem[] {
    return this.spec.end === undefined ? [] : this.#apply(this.spec.end(this.#state));
  }

  #apply(result: Normalized<State>): FrameProblem[] {
    this.#state = result.state;
    this.events += result.events.length;
    return problemsOf(undefined, result.events as CanonicalEvent[]);
  }
}

function pipeline<State extends SessionState, Native>(
  decode: (text: string) => unknown,
  spec: StreamSpec<State, Native>,
): SurfacePipeline {
  return { decode, open: () => new Reader(spec) };
}

/** Every surface's read path. */
export const PIPELINES: Readonly<Record<Surface, SurfacePipeline>> = {
  api: pipeline(streamFrameValue, {
    backend: "serve",
    initial: () => initialApiState(SESSION),
    parse: parseApiEvent,
    normalize: normalizeApiEvent,
  }),
  legacy: pipeline(streamFrameValue, {
    backend: "serve-legacy",
    initial: () => initialLegacyState(SESSION),
    parse: parseLegacyEvent,
    normalize: normalizeLegacyEvent,
  }),
  v2: pipeline(streamFrameValue, {
    backend: "serve",
    initial: () => initialV2State(SESSION),
    parse: parseV2Event,
    normalize: normalizeV2Event,
  }),
  run: pipeline(runLineValue, {
    backend: "subprocess",
    initial: () => initialRunState(SESSION),
    parse: parseRunLine,
    normalize: normalizeRunLine,
    begin: (state) => runStarted(state, "in_fuzz", { text: "the prompt", announced: false }),
    end: (state) => runEnded(state, { code: 0, signal: null, interrupted: false }),
  }),
};
