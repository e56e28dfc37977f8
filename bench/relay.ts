/**
 * (l) The relay (issue 33): a relay on loopback and a real sidecar reachable through it, a
 * paired device in this process. Goals: (l1) delta latency through the relay against straight
 * to the sidecar, p99 added ≤ 5 ms (bench/relay-latency.ts); (l2) 1,000 sessions reached
 * through the relay, 50 streaming at once, every turn whole (bench/relay-sessions.ts).
 * Not in the default run: `npm run bench -- --only l` (--relay-sessions N).
 */
import { recordGoal } from "./goals.js";
import { benchRelayLatency, type RelayLatencyResult } from "./relay-latency.js";
import { startRelayRig } from "./relay-rig.js";
import { benchRelaySessions, type RelaySessionsResult } from "./relay-sessions.js";
import { formatMs, note, percentile } from "./stats.js";

export interface RelayBenchOptions {
  latencyTurns: number;
  sessions: number;
  streaming: number;
  timeoutMs: number;
}

export interface RelayBenchResult {
  latency: RelayLatencyResult;
  sessions: RelaySessionsResult;
}

/** The goal of (l1): p99 of relayed − direct, per delta. */
const GOAL_ADDED_P99_MS = 5;

export async function benchRelay(options: RelayBenchOptions): Promise<RelayBenchResult> {
  note("(l) starting a relay and a real sidecar (scripted model) reachable through it");
  const rig = await startRelayRig({ label: "bench (l) relay" });
  try {
    const device = await rig.pairDevice("bench device");
    const latency = await benchRelayLatency(rig, device, {
      turns: options.latencyTurns,
      tokens: 200,
      delayMs: 5,
      timeoutMs: options.timeoutMs,
    });
    const sessions = await benchRelaySessions(rig, device, {
      sessions: options.sessions,
      streaming: Math.min(options.streaming, options.sessions),
      tokens: 100,
      delayMs: 10,
      timeoutMs: options.timeoutMs * 4,
    });
    return { latency, sessions };
  } finally {
    await rig.close();
  }
}

const spread = (values: readonly number[]) =>
  `p50 ${formatMs(percentile(values, 50))}  p95 ${formatMs(percentile(values, 95))}  ` +
  `p99 ${formatMs(percentile(values, 99))}  max ${formatMs(Math.max(...values))}`;

export function relayLines(result: RelayBenchResult): string[] {
  const { latency, sessions } = result;
  const addedP99 = percentile(latency.addedMs, 99);
  const bareP99 = percentile(latency.bareHopsMs, 99);
  const latencyMet = recordGoal({
    figure: "(l)",
    what: "delta latency added by the relay, p99 (device through the relay − direct client)",
    measured: formatMs(addedP99),
    goal: `≤ ${GOAL_ADDED_P99_MS} ms`,
    met: addedP99 <= GOAL_ADDED_P99_MS,
    // Bare hops chained in the same process lagging by as much (within 1 ms, as (g) judges its
    // one hop) say the tail is the machine and this process's event loop, not the relay's code.
    ...(addedP99 > GOAL_ADDED_P99_MS && bareP99 > GOAL_ADDED_P99_MS && addedP99 - bareP99 <= 1
      ? {
          limitedBy: {
            by: "the machine",
            shownBy: `2 bare WebSocket hops in the same process lag by p99 ${formatMs(bareP99)}`,
          },
        }
      : {}),
  });
  const { options } = sessions;
  const whole = sessions.errors.length === 0 && sessions.wholeTurns === options.streaming;
  const sessionsMet = recordGoal({
    figure: "(l)",
    what: `${options.sessions} relayed sessions, ${options.streaming} streaming at once: turns whole, errors`,
    measured: `${sessions.wholeTurns} / ${options.streaming} whole, ${sessions.errors.length} errors`,
    goal: "all whole, 0 errors",
    met: whole,
  });
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return [
    `(l) relay delta     n=${latency.addedMs.length}  added (relayed − direct) ${spread(latency.addedMs)}  ` +
      `(goal p99 ≤ ${GOAL_ADDED_P99_MS} ms: ${latencyMet})`,
    `                    direct client − in-process Turn  ${spread(latency.directMs)}`,
    `                    device via relay − in-process Turn  ${spread(latency.relayedMs)}`,
    `    baseline        2 bare ws hops chained from the direct client, same process ` +
      `${spread(latency.bareHopsMs)}  (n=${latency.bareHopsMs.length})`,
    `                    device − bare hops, per delta: ${spread(latency.overBareMs)}`,
    `                    Turn yielded ${latency.turnDeltas} deltas, direct received ` +
      `${latency.directDeltas}, device ${latency.relayedDeltas}; load average ` +
      `${latency.load.average.toFixed(1)} on ${latency.load.cores} cores`,
    `                    meanwhile the event loop's delay (relay, sidecar and clients share it) ` +
      `p50 ${formatMs(latency.loopDelayMs.p50)}  p99 ${formatMs(latency.loopDelayMs.p99)}  ` +
      `max ${formatMs(latency.loopDelayMs.max)}; Noise encrypt + decrypt of a ` +
      `${latency.noise.frameBytes}-byte frame alone p50 ${latency.noise.p50Us.toFixed(0)} µs  ` +
      `p99 ${latency.noise.p99Us.toFixed(0)} µs`,
    `    relay sessions  ${options.sessions} sessions through one device: made in ` +
      `${seconds(sessions.createMs)}, subscribed (${sessions.sockets} tunnelled sockets) in ` +
      `${seconds(sessions.subscribeMs)}; ` +
      `${options.streaming} turns of ${options.tokens} deltas at once: ${seconds(sessions.wallMs)} ` +
      `send → last end; ${sessions.wholeTurns} whole, ${sessions.errors.length} errors ` +
      `(goal all whole, 0 errors: ${sessionsMet})`,
    `                    peak RSS of the bench process (relay, sidecar, device in it) ` +
      `${(sessions.peakRssBytes / 2 ** 20).toFixed(0)} MiB`,
    ...sessions.errors.slice(0, 3).map((error) => `                    error: ${error}`),
  ];
}
