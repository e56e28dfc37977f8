/**
 * (e) The transcript store: appending and replaying many sessions' durable events in a temp
 * SQLite file, against a baseline in the same process that does the least any store must
 * (`JSON.stringify` into in-memory arrays, `JSON.parse` back).
 *
 * Appends follow the runtime's own write pattern: `concurrent` sessions stream at once, each
 * appending one native event's canonical events (`batch` of them, with the cursor) per call and
 * awaiting that commit before its next append, as a session's event log does; a session that is
 * done makes room for the next. The store groups what is issued together into one transaction
 * (group commit). Before group commit, the same appends (round-robin, a transaction each)
 * ran at about 24k ev/s on the 2-core machine of docs/performance.md.
 * Replay reads each session whole. Memory is the RSS and heap growth each side keeps after
 * appending (after a GC). Runs alone too:
 * `npx tsx bench/store.ts [--sessions N] [--events N] [--batch N] [--concurrent N]`.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { canonical } from "../src/events/build.js";
import type { CanonicalEvent, CanonicalEventOf, CanonicalType } from "../src/events/canonical.js";
import { SqliteStore } from "../src/store/sqlite-store.js";
import { recordGoal } from "./goals.js";
import { formatRate, formatRatio, note } from "./stats.js";

export interface StoreBenchOptions {
  sessions: number;
  /** Durable events per session (all of them are stored). */
  eventsPerSession: number;
  /** Events per `append` call (one native event's canonical events). */
  batch: number;
  /** Sessions appending at once. */
  concurrent: number;
}

/** Growth kept after a phase, in bytes. */
export interface MemoryGrowth {
  rss: number;
  heap: number;
}

export interface StoreBenchResult {
  options: StoreBenchOptions;
  events: number;
  store: { appendMs: number; replayMs: number; kept: MemoryGrowth; fileBytes: number };
  baseline: { appendMs: number; replayMs: number; kept: MemoryGrowth };
}

/** Written by every loop so that the engine cannot drop the work as unused. */
let sink = 0;

export async function benchStore(options: StoreBenchOptions): Promise<StoreBenchResult> {
  const events = options.sessions * options.eventsPerSession;
  const dir = mkdtempSync(join(tmpdir(), "ocb-bench-store-"));
  try {
    note(`(e) warming up`);
    const warmup = { ...options, sessions: Math.min(options.sessions, 200) };
    await runStore(join(dir, "warmup.db"), warmup);
    runBaseline(warmup);

    note(
      `(e) store: ${options.sessions} sessions × ${options.eventsPerSession} events, ` +
        `${options.concurrent} at once`,
    );
    const store = await runStore(join(dir, "store.db"), options);
    note(`(e) baseline: JSON.stringify into arrays, JSON.parse back`);
    const baseline = runBaseline(options);
    note(`(e) done (sink ${sink})`);
    return {
      options,
      events,
      store,
      baseline,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runStore(
  path: string,
  options: StoreBenchOptions,
): Promise<StoreBenchResult["store"]> {
  const before = memory();
  const store = SqliteStore.open(path);
  let appendMs: number;
  let replayMs: number;
  let kept: MemoryGrowth;
  try {
    const template = sessionTemplate(options.eventsPerSession);
    let next = 0;
    // One session's stream: an append per native event, each awaited before the next.
    const stream = async (): Promise<void> => {
      for (let session = next++; session < options.sessions; session = next++) {
        const sessionId = sessionIdOf(session);
        for (const [batch, cursor] of sessionBatches(template, sessionId, options.batch)) {
          sink += (await store.append(sessionId, batch, cursor)).length;
        }
      }
    };
    const started = performance.now();
    const streams = Array.from({ length: Math.min(options.concurrent, options.sessions) }, stream);
    await Promise.all(streams);
    appendMs = performance.now() - started;
    kept = growth(before, memory());
    const replayStarted = performance.now();
    for (let session = 0; session < options.sessions; session++) {
      sink += (await store.read(sessionIdOf(session))).length;
    }
    replayMs = performance.now() - replayStarted;
  } finally {
    await store.close();
  }
  return { appendMs, replayMs, kept, fileBytes: statSync(path).size };
}

function runBaseline(options: StoreBenchOptions): StoreBenchResult["baseline"] {
  const before = memory();
  const logs = new Map<string, string[]>();
  const cursors = new Map<string, string>();
  const started = performance.now();
  for (const [sessionId, batch, cursor] of batches(options)) {
    let log = logs.get(sessionId);
    if (log === undefined) {
      log = [];
      logs.set(sessionId, log);
    }
    for (const event of batch) log.push(JSON.stringify({ ...event, seq: log.length + 1 }));
    cursors.set(sessionId, cursor);
  }
  const appendMs = performance.now() - started;
  const kept = growth(before, memory());
  const replayStarted = performance.now();
  for (let session = 0; session < options.sessions; session++) {
    const log = logs.get(sessionIdOf(session)) ?? [];
    sink += log.map((line): unknown => JSON.parse(line)).length;
  }
  const replayMs = performance.now() - replayStarted;
  sink += cursors.size;
  return { appendMs, replayMs, kept };
}

/** One session's appends: `batch` events at a time, each with the cursor after it. */
function* sessionBatches(
  template: readonly CanonicalEvent[],
  sessionId: string,
  batch: number,
): Iterable<[CanonicalEvent[], string]> {
  for (let from = 0; from < template.length; from += batch) {
    const to = Math.min(from + batch, template.length);
    const events = template
      .slice(from, to)
      .map((event) => ({ ...event, id: `${sessionId}/${event.id}`, sessionId }));
    yield [events, String(to)];
  }
}

/** The appends, round-robin over the sessions, `batch` events at a time. */
function* batches(options: StoreBenchOptions): Iterable<[string, CanonicalEvent[], string]> {
  const template = sessionTemplate(options.eventsPerSession);
  for (let from = 0; from < options.eventsPerSession; from += options.batch) {
    const to = Math.min(from + options.batch, options.eventsPerSession);
    for (let session = 0; session < options.sessions; session++) {
      const sessionId = sessionIdOf(session);
      const batch = template
        .slice(from, to)
        .map((event) => ({ ...event, id: `${sessionId}/${event.id}`, sessionId }));
      yield [sessionId, batch, String(to)];
    }
  }
}

function sessionIdOf(index: number): string {
  return `ses_bench_${index.toString().padStart(6, "0")}`;
}

const TEXT = "I'll look at the login handler first, then run the tests to see what fails. ".repeat(
  3,
);
const OUTPUT = "src/login.ts\nsrc/login.test.ts\nsrc/session.ts\n".repeat(6);
const USAGE = {
  tokens: { input: 8762, output: 47, reasoning: 0, cacheRead: 486, cacheWrite: 0 },
  cost: 0.0031,
};

/** `count` durable events of one session, turn after turn, sized like a real transcript's. */
function sessionTemplate(count: number): CanonicalEvent[] {
  const events: CanonicalEvent[] = [];
  for (let turn = 0; events.length < count; turn++) {
    const inputId = `msg_${turn}`;
    const turnId = `turn_${inputId}`;
    const add = <T extends CanonicalType>(type: T, data: CanonicalEventOf<T>["data"]): void => {
      if (events.length >= count) return;
      const at = 1_800_000_000_000 + events.length;
      const origin = {
        sessionId: "template",
        turnId,
        at,
        native: {
          backend: "serve" as const,
          type: `session.next.${type}`,
          seq: events.length,
          id: `evt_${at}`,
        },
      };
      events.push(canonical(origin, 0, type, data));
    };
    const stepId = `${turnId}/step`;
    add("input.admitted", { inputId, text: "Fix the login bug, please.", delivery: "queue" });
    add("turn.started", { inputId });
    add("step.started", {
      stepId,
      model: { providerID: "demo", modelID: "demo-1" },
      agent: "build",
    });
    add("text.started", { partId: `${stepId}/text-0`, stepId });
    add("text.ended", { partId: `${stepId}/text-0`, stepId, text: TEXT });
    add("tool.called", {
      callId: `${stepId}/call`,
      tool: "bash",
      input: { command: "ls src" },
      stepId,
    });
    add("tool.succeeded", { callId: `${stepId}/call`, output: OUTPUT });
    add("step.ended", { stepId, finish: "tool-calls", usage: USAGE });
    add("turn.ended", { outcome: "completed", usage: USAGE, text: TEXT });
  }
  return events;
}

let gc: (() => void) | undefined;

/** Runs the GC, exposed at run time so that the bench needs no `--expose-gc`. */
function collectGarbage(): void {
  if (gc === undefined) {
    setFlagsFromString("--expose-gc");
    const exposed: unknown = runInNewContext("gc");
    gc = typeof exposed === "function" ? () => exposed() : () => {};
  }
  gc();
}

function memory(): MemoryGrowth {
  collectGarbage();
  const usage = process.memoryUsage();
  return { rss: usage.rss, heap: usage.heapUsed };
}

function growth(before: MemoryGrowth, after: MemoryGrowth): MemoryGrowth {
  return { rss: after.rss - before.rss, heap: after.heap - before.heap };
}

/** `+12 MiB`, `-3 MiB`: a growth, signed. */
function formatGrowth(bytes: number): string {
  const mib = Math.round(bytes / 2 ** 20);
  return `${mib < 0 ? "-" : "+"}${Math.abs(mib)} MiB`;
}

/** The figures, one line per measure. */
export function storeLines(result: StoreBenchResult): string[] {
  const { store, baseline, events, options } = result;
  const rate = (ms: number): string => formatRate((events / ms) * 1000);
  const appendRate = (events / store.appendMs) * 1000;
  const goal = recordGoal({
    figure: "(e)",
    what: `store append, the runtime's write pattern (${options.concurrent} sessions at once)`,
    measured: formatRate(appendRate),
    goal: "≥ 100k ev/s",
    met: appendRate >= 100_000,
  });
  return [
    `(e) store           ${options.sessions} sessions × ${options.eventsPerSession} events, ` +
      `${options.batch} per append, ${options.concurrent} sessions at once (SQLite file, WAL)`,
    `                    append  store ${rate(store.appendMs)}  baseline ${rate(baseline.appendMs)}  ` +
      `ratio ${formatRatio(store.appendMs / baseline.appendMs)}  goal ≥ 100k ev/s: ${goal}`,
    `                    replay  store ${rate(store.replayMs)}  baseline ${rate(baseline.replayMs)}  ` +
      `ratio ${formatRatio(store.replayMs / baseline.replayMs)}`,
    `                    kept    store RSS ${formatGrowth(store.kept.rss)} heap ${formatGrowth(store.kept.heap)}  ` +
      `baseline RSS ${formatGrowth(baseline.kept.rss)} heap ${formatGrowth(baseline.kept.heap)}  ` +
      `file ${Math.round(store.fileBytes / 2 ** 20)} MiB`,
  ];
}

const runAlone =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;

if (runAlone) {
  const { values } = parseArgs({
    options: {
      sessions: { type: "string", default: "10000" },
      events: { type: "string", default: "100" },
      batch: { type: "string", default: "5" },
      concurrent: { type: "string", default: "1000" },
    },
  });
  const positive = (name: string, text: string): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value <= 0)
      throw new Error(`--${name} wants a positive integer`);
    return value;
  };
  const result = await benchStore({
    sessions: positive("sessions", values.sessions),
    eventsPerSession: positive("events", values.events),
    batch: positive("batch", values.batch),
    concurrent: positive("concurrent", values.concurrent),
  });
  process.stdout.write(`${storeLines(result).join("\n")}\n`);
}
