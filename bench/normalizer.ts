/**
 * (a) Normaliser throughput: the recorded `/api` frames of every fixture, repeated into a large
 * stream of JSON lines, read in the same process: `JSON.parse` alone (the baseline), then
 * `JSON.parse` + `parseApiEvent`, and the bridge's whole path (`JSON.parse` + `parseApiEvent` +
 * `normalizeApiEvent` chained over the state), each twice: in the code `tsc` builds (what an
 * installed package runs; the goal is measured on it) and in the code tsx runs `src/` as.
 */
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as normalizeApi from "../src/events/normalize-api.js";
import * as apiEvents from "../src/opencode-protocol/api/events.js";
import { recordedEvents } from "../test/support/fixture-events.js";
import { compiledBuild } from "./compiled-build.js";
import { recordGoal } from "./goals.js";
import { formatRate, formatRatio, median, note } from "./stats.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/opencode-1.18.33/", import.meta.url));

export interface NormalizerOptions {
  events: number;
  /** Measured runs of each variant; the median is reported. */
  runs: number;
  /** Unmeasured passes of each variant first, so that the JIT has settled. */
  warmups: number;
}

/** The two functions the bridge's path runs, from one build of them. */
interface NormalizerCode {
  parseApiEvent: typeof apiEvents.parseApiEvent;
  initialApiState: typeof normalizeApi.initialApiState;
  normalizeApiEvent: typeof normalizeApi.normalizeApiEvent;
}

/** Medians of one build's two variants. */
export interface BuildTimes {
  parseMs: number;
  bridgeMs: number;
}

export interface NormalizerResult {
  events: number;
  /** Distinct recorded frames the stream repeats. */
  frames: number;
  jsonMs: number;
  /** `src/` built by tsc, as installed. */
  compiled: BuildTimes;
  /** `src/` as tsx runs it (esbuild, keepNames). */
  tsx: BuildTimes;
  /** Whether tsx's code calls `__name` at each closure it makes. */
  tsxKeepsNames: boolean;
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

function jsonAndParse(code: NormalizerCode): (lines: readonly string[]) => number {
  return (lines) => {
    let count = 0;
    for (const line of lines) {
      if (code.parseApiEvent(JSON.parse(line)).known) count++;
    }
    return count;
  };
}

function bridgePath(code: NormalizerCode): (lines: readonly string[]) => number {
  return (lines) => {
    let state = code.initialApiState("ses_bench");
    let count = 0;
    for (const line of lines) {
      const result = code.normalizeApiEvent(state, code.parseApiEvent(JSON.parse(line)));
      state = result.state;
      count += result.events.length;
    }
    return count;
  };
}

function timed(run: (lines: readonly string[]) => number, lines: readonly string[]): number {
  const started = performance.now();
  sink += run(lines);
  return performance.now() - started;
}

export async function benchNormalizer(options: NormalizerOptions): Promise<NormalizerResult> {
  const frames = recordedApiFrames();
  if (frames.length === 0) throw new Error(`no recorded /api frames under ${FIXTURES}`);
  const lines = buildStream(frames, options.events);
  note("(a) building src/ with tsc");
  const build = compiledBuild();
  try {
    const compiled: NormalizerCode = {
      ...((await import(build.url("events/normalize-api.js"))) as typeof normalizeApi),
      ...((await import(build.url("opencode-protocol/api/events.js"))) as typeof apiEvents),
    };
    const tsx: NormalizerCode = { ...normalizeApi, ...apiEvents };
    const variants = {
      json: jsonOnly,
      compiledParse: jsonAndParse(compiled),
      compiledBridge: bridgePath(compiled),
      tsxParse: jsonAndParse(tsx),
      tsxBridge: bridgePath(tsx),
    };
    const canonicalEvents = variants.compiledBridge(lines);
    if (canonicalEvents !== variants.tsxBridge(lines)) {
      throw new Error("the compiled build and tsx made different numbers of canonical events");
    }
    note(`(a) ${lines.length} lines from ${frames.length} recorded frames; warming up`);
    const runs: Record<keyof typeof variants, number[]> = {
      json: [],
      compiledParse: [],
      compiledBridge: [],
      tsxParse: [],
      tsxBridge: [],
    };
    for (let i = 0; i < options.warmups + options.runs; i++) {
      // Interleaved, so that a slow spell of the machine hits every variant alike.
      for (const [name, run] of Object.entries(variants)) {
        const ms = timed(run, lines);
        if (i >= options.warmups) runs[name as keyof typeof variants].push(ms);
      }
    }
    note(`(a) done (sink ${sink})`);
    return {
      events: lines.length,
      frames: frames.length,
      jsonMs: median(runs.json),
      compiled: { parseMs: median(runs.compiledParse), bridgeMs: median(runs.compiledBridge) },
      tsx: { parseMs: median(runs.tsxParse), bridgeMs: median(runs.tsxBridge) },
      tsxKeepsNames: normalizeApi.normalizeApiEvent.toString().includes("__name("),
      canonicalEvents,
    };
  } finally {
    build.dispose();
  }
}

/** The figure's lines; records its goal (measured on the compiled build). */
export function normalizerLines(result: NormalizerResult): string[] {
  const rate = (ms: number): string => formatRate((result.events / ms) * 1000);
  /** Throughput against JSON.parse alone: 0.5x is half as many events per second. */
  const share = (ms: number): number => result.jsonMs / ms;
  const goal = recordGoal({
    figure: "(a)",
    what: "normaliser throughput against JSON.parse of the same lines (tsc build)",
    measured: formatRatio(share(result.compiled.bridgeMs)),
    goal: "≥ 0.5x",
    met: share(result.compiled.bridgeMs) >= 0.5,
  });
  const build = (name: string, times: BuildTimes): string =>
    `${name} bridge ${rate(times.bridgeMs)} = ${formatRatio(share(times.bridgeMs))} of JSON.parse` +
    `  (JSON.parse+parseApiEvent ${rate(times.parseMs)} = ${formatRatio(share(times.parseMs))})`;
  return [
    `(a) normaliser      ${result.events} events  JSON.parse ${rate(result.jsonMs)}; ` +
      `throughput against it, goal ≥ 0.5x: ${goal}`,
    `                    ${build("tsc build", result.compiled)}`,
    `                    ${build("under tsx", result.tsx)}` +
      (result.tsxKeepsNames ? " (keepNames: a __name call per closure made)" : ""),
    `                    ${result.frames} recorded frames repeated, ` +
      `${result.canonicalEvents} canonical events made`,
  ];
}
