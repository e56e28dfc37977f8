/**
 * (a) Normaliser throughput: the recorded `/api` frames of every fixture, repeated into a large
 * stream of JSON lines, read three ways in the same process: `JSON.parse` alone (the baseline),
 * `JSON.parse` + `parseApiEvent`, and the bridge's whole path (`JSON.parse` + `parseApiEvent` +
 * `normalizeApiEvent` chained over the state).
 */
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { initialApiState, normalizeApiEvent } from "../src/events/normalize-api.js";
import { parseApiEvent } from "../src/protocol/api/events.js";
import { recordedEvents } from "../test/support/fixture-events.js";
import { median, note } from "./stats.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/opencode-1.18.33/", import.meta.url));

export interface NormalizerOptions {
  events: number;
  /** Measured runs of each variant; the median is reported. */
  runs: number;
  /** Unmeasured passes of each variant first, so that the JIT has settled. */
  warmups: number;
}

export interface NormalizerResult {
  events: number;
  /** Distinct recorded frames the stream repeats. */
  frames: number;
  jsonMs: number;
  parseMs: number;
  bridgeMs: number;
  canonicalEvents: number;
}

/** Every frame the `/api` transcripts recorded, on either stream, in order. */
export function recordedApiFrames(): unknown[] {
  return readdirSync(FIXTURES)
    .filter((name) => name.startsWith("api-") && name.endsWith(".transcript.ndjson"))
    .sort()
    .flatMap((name) => recordedEvents(`${FIXTURES}${name}`));
}

/**
 * `total` JSON lines repeating `frames`. Each copy gets its own event ids, seqs and timestamps,
 * so that no two lines are the same text (and no parse can be shared). Message ids stay, so
 * the normaliser's pending-input map keeps its size instead of growing with the copies.
 */
export function buildStream(frames: readonly unknown[], total: number): string[] {
  const lines: string[] = [];
  for (let copy = 0; lines.length < total; copy++) {
    for (const frame of frames) {
      if (lines.length >= total) break;
      lines.push(JSON.stringify(varied(frame, copy)));
    }
  }
  return lines;
}

function varied(frame: unknown, copy: number): unknown {
  if (!isRecord(frame)) return frame;
  const out: Record<string, unknown> = { ...frame };
  if (typeof out.id === "string") out.id = `${out.id}${copy.toString(36)}`;
  if (isRecord(out.durable) && typeof out.durable.seq === "number") {
    out.durable = { ...out.durable, seq: out.durable.seq + copy * 1_000 };
  }
  if (isRecord(out.data) && typeof out.data.timestamp === "number") {
    out.data = { ...out.data, timestamp: out.data.timestamp + copy };
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Written by every loop so that the engine cannot drop the work as unused. */
let sink = 0;

function jsonOnly(lines: readonly string[]): number {
  let count = 0;
  for (const line of lines) {
    const value: unknown = JSON.parse(line);
    if (value !== null) count++;
  }
  return count;
}

function jsonAndParse(lines: readonly string[]): number {
  let count = 0;
  for (const line of lines) {
    if (parseApiEvent(JSON.parse(line)).known) count++;
  }
  return count;
}

function bridgePath(lines: readonly string[]): number {
  let state = initialApiState("ses_bench");
  let count = 0;
  for (const line of lines) {
    const result = normalizeApiEvent(state, parseApiEvent(JSON.parse(line)));
    state = result.state;
    count += result.events.length;
  }
  return count;
}

function timed(run: (lines: readonly string[]) => number, lines: readonly string[]): number {
  const started = performance.now();
  sink += run(lines);
  return performance.now() - started;
}

export function benchNormalizer(options: NormalizerOptions): NormalizerResult {
  const frames = recordedApiFrames();
  if (frames.length === 0) throw new Error(`no recorded /api frames under ${FIXTURES}`);
  const lines = buildStream(frames, options.events);
  const canonicalEvents = bridgePath(lines);
  note(`(a) ${lines.length} lines from ${frames.length} recorded frames; warming up`);
  for (let i = 0; i < options.warmups; i++) {
    timed(jsonOnly, lines);
    timed(jsonAndParse, lines);
    timed(bridgePath, lines);
  }
  const json: number[] = [];
  const parse: number[] = [];
  const bridge: number[] = [];
  for (let i = 0; i < options.runs; i++) {
    // Interleaved, so that a slow spell of the machine hits every variant alike.
    json.push(timed(jsonOnly, lines));
    parse.push(timed(jsonAndParse, lines));
    bridge.push(timed(bridgePath, lines));
  }
  note(`(a) done (sink ${sink})`);
  return {
    events: lines.length,
    frames: frames.length,
    jsonMs: median(json),
    parseMs: median(parse),
    bridgeMs: median(bridge),
    canonicalEvents,
  };
}
