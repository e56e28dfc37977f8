/**
 * (b) The latency the bridge adds per text delta: a raw SSE reader on the global `/api/event`
 * stream and the bridge's `turn.events()` run in the same process; for each delta both saw
 * (matched by the native event id the canonical event carries), latency is the time the bridge
 * yielded it minus the time the raw reader saw it.
 */
import { availableParallelism, loadavg } from "node:os";
import { AbortError } from "../src/errors.js";
import type { Bridge } from "../src/runtime/bridge/bridge.js";
import type { Session } from "../src/runtime/session/session.js";
import { readSse } from "../src/transport/sse-reader.js";
import { recordGoal } from "./goals.js";
import { RawApi, summarizeFrame } from "./raw-api.js";
import { formatMs, note, percentile, withTimeout } from "./stats.js";

export interface DeltaLatencyOptions {
  turns: number;
  /** `[[slow TOKENS DELAYMS]]`: deltas per turn and the model's pause before each. */
  tokens: number;
  delayMs: number;
  /** Bound on one turn, and on connecting the raw reader. */
  timeoutMs: number;
}

export interface DeltaLatencyResult {
  /** Bridge time − raw reader time, ms, one per matched delta. */
  samples: number[];
  /** A second raw reader's time − the first's, ms, for the same deltas: the tail's baseline. */
  fanOut: number[];
  /** Deltas of the session the raw reader saw. */
  rawSeen: number;
  /** Deltas the bridge yielded inside the turns (the warm-up's too: the raw reader counts them). */
  bridgeSeen: number;
  /**
   * The machine's 1-minute load average at the end, and its cores: the tail is set by what else
   * runs (a process preempted between the two readers' frames), so the line says how busy it was.
   */
  load: { average: number; cores: number };
}

const DELTA = "session.next.text.delta";

export async function benchDeltaLatency(
  bridge: Bridge,
  directory: string,
  options: DeltaLatencyOptions,
): Promise<DeltaLatencyResult> {
  const raw = new RawApi({ url: bridge.server.url, password: bridge.server.password, directory });
  const stop = new AbortController();
  const rawSeen = new Map<string, number>();
  const secondSeen = new Map<string, number>();
  const bridgeSeen = new Map<string, number>();
  const warmSeen = new Map<string, number>();
  let session: Session | undefined;
  const readers: Promise<void>[] = [];
  try {
    // Known once the session exists; the raw readers connect first (see below).
    let sessionId: string | undefined;
    const reader = { bridge, raw, signal: stop.signal, timeoutMs: options.timeoutMs };
    const first = startRawReader(reader, () => sessionId, rawSeen);
    readers.push(first.reading);
    await first.connected;
    // Created after the raw reader subscribed. The server appears to write each event to its
    // subscribers in subscription order: with the bridge subscribed first, its socket got each
    // delta ~0.25 ms earlier and p50 came out negative. This way the skew counts against the
    // bridge, so the figure is an upper bound on what it adds.
    session = await withTimeout(
      bridge.createSession({ title: "bench delta latency" }),
      options.timeoutMs,
      "creating the session",
    );
    sessionId = session.id;
    // The baseline of the tail: a reader that does nothing, subscribed after the bridge's live
    // stream (so that the bridge's place among the subscribers is as without it). How far it
    // lags the first reader is OpenCode's fan-out and the machine, with no bridge work of its own.
    const second = startRawReader(reader, () => sessionId, secondSeen);
    readers.push(second.reading);
    await second.connected;

    // One unmeasured turn, so that the session's own streams are connected too.
    await runTurn(session, "[[reply warm]]", options.timeoutMs, warmSeen);
    for (let turn = 0; turn < options.turns; turn++) {
      await runTurn(
        session,
        `[[slow ${options.tokens} ${options.delayMs}]]`,
        options.timeoutMs,
        bridgeSeen,
      );
      note(`(b) turn ${turn + 1}/${options.turns}: ${bridgeSeen.size} deltas so far`);
    }
    // The raw reader may still be behind the bridge on the last deltas.
    await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    stop.abort();
    for (const reading of readers) {
      await withTimeout(reading, 5_000, "closing a raw reader").catch((error: unknown) =>
        note(`(b) raw reader: ${String(error)}`),
      );
    }
    await session?.close();
  }

  const samples: number[] = [];
  const fanOut: number[] = [];
  for (const [id, yieldedAt] of bridgeSeen) {
    const seenAt = rawSeen.get(id);
    if (seenAt === undefined) continue;
    samples.push(yieldedAt - seenAt);
    const secondAt = secondSeen.get(id);
    if (secondAt !== undefined) fanOut.push(secondAt - seenAt);
  }
  return {
    samples,
    fanOut,
    rawSeen: rawSeen.size,
    bridgeSeen: bridgeSeen.size + warmSeen.size,
    load: { average: loadavg()[0] ?? Number.NaN, cores: availableParallelism() },
  };
}

/**
 * A reader of the global `/api/event` stream that notes when it saw each text delta of the
 * session (`sessionId()`, once it exists): the minimal SSE client, the baseline.
 */
function startRawReader(
  options: { bridge: Bridge; raw: RawApi; signal: AbortSignal; timeoutMs: number },
  sessionId: () => string | undefined,
  seen: Map<string, number>,
): { reading: Promise<void>; connected: Promise<void> } {
  let connected = (): void => {};
  const firstMessage = new Promise<void>((resolve) => {
    connected = resolve;
  });
  const messages = readSse({
    url: () => `${options.bridge.server.url}/api/event`,
    headers: () => options.raw.headers(),
    signal: options.signal,
    idleTimeoutMs: options.timeoutMs,
    maxConsecutiveFailures: 3,
  });
  const reading = (async () => {
    for await (const message of messages) {
      const seenAt = performance.now();
      connected();
      // Cheap prefilter: the global stream carries every session's events.
      if (!message.data.includes(DELTA)) continue;
      const frame = summarizeFrame(message.data);
      if (frame?.type !== DELTA || frame.sessionID !== sessionId() || frame.id === undefined) {
        continue;
      }
      if (!seen.has(frame.id)) seen.set(frame.id, seenAt);
    }
  })().catch((error: unknown) => {
    if (!(error instanceof AbortError)) throw error;
  });
  // The server greets a new subscriber with `server.connected`: after it, nothing is missed.
  return {
    reading,
    connected: withTimeout(
      Promise.race([firstMessage, reading]),
      options.timeoutMs,
      "a raw reader's connection",
    ),
  };
}

/** Sends `text`, reads the turn to its end, records when each delta was yielded. */
async function runTurn(
  session: Session,
  text: string,
  timeoutMs: number,
  seen: Map<string, number> | undefined,
): Promise<void> {
  const signal = AbortSignal.timeout(timeoutMs);
  const turn = await session.send(text, { delivery: "queue", signal });
  for await (const event of turn.events({ signal })) {
    if (event.type !== "text.delta") continue;
    const yieldedAt = performance.now();
    const id = event.native?.id;
    if (seen !== undefined && id !== undefined && !seen.has(id)) seen.set(id, yieldedAt);
  }
  const result = await withTimeout(turn.done(), timeoutMs, `turn ${turn.id}`);
  if (result.outcome !== "completed") {
    throw new Error(`turn ${turn.id} ended ${result.outcome}: ${result.error?.message ?? ""}`);
  }
}

/** The figure's line; records its goals (p99 ≤ 1 ms, and every delta the raw reader saw handed out). */
export function deltaLatencyLines(result: DeltaLatencyResult): string[] {
  const { samples, fanOut } = result;
  const p99 = percentile(samples, 99);
  const fanOutP99 = percentile(fanOut, 99);
  const latency = recordGoal({
    figure: "(b)",
    what: "delta latency added by the bridge, p99 (against a raw SSE reader)",
    measured: formatMs(p99),
    goal: "≤ 1 ms",
    met: p99 <= 1,
    // A reader that does nothing, subscribed after the bridge, lagging the first by as much
    // (within the goal's 1 ms) says the tail is the server's fan-out and the machine, not the
    // bridge; a bridge more than 1 ms behind that reader is the bridge's own tail.
    ...(p99 > 1 && fanOutP99 > 1 && p99 - fanOutP99 <= 1
      ? {
          limitedBy: {
            by: "OpenCode",
            shownBy: `a do-nothing raw reader lags the first by p99 ${formatMs(fanOutP99)}`,
          },
        }
      : {}),
  });
  const counts = recordGoal({
    figure: "(b)",
    what: "deltas the bridge hands out / deltas the raw reader saw",
    measured: `${result.bridgeSeen} / ${result.rawSeen}`,
    goal: "equal",
    met: result.bridgeSeen === result.rawSeen,
  });
  return [
    `(b) delta latency   n=${samples.length}  p50 ${formatMs(percentile(samples, 50))}  ` +
      `p99 ${formatMs(p99)}  (bridge − raw SSE reader, same process; goal p99 ≤ 1 ms: ${latency})`,
    `                    baseline: a raw reader subscribed after the bridge saw them ` +
      `p50 ${formatMs(percentile(fanOut, 50))}  p99 ${formatMs(fanOutP99)} after the first ` +
      `(n=${fanOut.length})`,
    `                    raw saw ${result.rawSeen} deltas, bridge yielded ${result.bridgeSeen} ` +
      `(goal equal: ${counts}); load average ${result.load.average.toFixed(1)} on ` +
      `${result.load.cores} cores`,
  ];
}
