/**
 * `npm run bench`: nine figures, each against a baseline run in the same process.
 *   (a) normaliser throughput against bare `JSON.parse` of the same lines;
 *   (b) the latency the bridge adds per text delta, against a raw SSE reader;
 *   (c) a short turn through the bridge against the same turn over raw `fetch`;
 *   (d) the same short tool turn on each backend, against `serve`;
 *   (e) the transcript store against JSON in memory;
 *   (f) the heap of a session after 10,000 events against a fresh one;
 *   (g) the sidecar: latency it adds per delta (client − in-process Turn; goal p99 ≤ 5 ms),
 *       against a bare WebSocket in the same process, and events/s to 100 subscribed clients
 *       against 100 in-process readers;
 *   (h) the web chat in Chromium: first render of a session of 10,000 events, and the longest
 *       main-thread task while 10,000 deltas stream (goals ≤ 500 ms and ≤ 50 ms).
 *   (i) open sessions on one serve bridge: upstream streams and heap of N idle ones, the
 *       bridge's CPU per streaming turn with N open against 10 open, and 50 of the N streaming
 *       a turn at once (each must end whole).
 *   (j) `ocb run` (compiled, as installed) cold, against `opencode run` of the same turn.
 * Options: --events N (a), --latency-turns N (b), --runs N (c), --backend-runs N (d),
 * --store-sessions N and --store-concurrent N (e), --memory-sessions N (f), --sidecar-turns N and
 * --sidecar-clients N (g), --web-events N, --web-renders N and --web-deltas N (h),
 * --open-sessions N (i), --cold-runs N (j), --pg-sessions N (p), --control-calls N (x),
 * --keystrokes N (y), --only a,b,c,d,e,f,g,h,i,j,p,q,r,s,t,u,v,w,x,y.
 *   (p) the Postgres store against the SQLite store, the same appends and reads on each.
 *   (k) the store encrypted at rest against the same store in clear, on SQLite and Postgres
 *       (--enc-sessions N; bench/store-encryption.ts). Not in the default run: --only k.
 *   (l) the relay: delta latency through a relay against straight to the sidecar (p99 added
 *       ≤ 5 ms), and N sessions through one relayed device, 50 streaming at once, every turn
 *       whole (--relay-sessions N, default 1000; bench/relay.ts). Not in the default run: --only l.
 *   (r), (t) three `ocb serve --cluster` processes: events/s to 100 clients over them, and
 *       failover time after SIGKILL of the driving one (bench/cluster.ts).
 *   (s) the latency a delta gains relayed across sidecars (--relay-turns N), against the
 *       driver's own client.
 *   (u) an ask's diff of a 10,000-line file: the longest event-loop block while it is made or
 *       given up, and how long that takes (bench/ask-diff.ts).
 *   (v) the sandbox's cost: a tool turn and a server start in bubblewrap against without
 *       (--sandbox-turns N; bench/sandbox-cost.ts).
 *   (w) the session list with N kept sessions (--list-sessions N): the latency of a page of
 *       `GET /v1/sessions?limit=50`, p99 (bench/session-list.ts).
 *   (x) each control call (agents, commands, MCP, skills, todos, VCS, changes, files, undo +
 *       redo, switch agent) through the sidecar against the same call straight to OpenCode
 *       (--control-calls N each; bench/control-calls.ts).
 *   (y) a terminal keystroke's echo through the sidecar against straight on OpenCode's PTY
 *       socket (--keystrokes N each), p99 added (bench/terminal-echo.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { BackendKind } from "../src/backends/backend.js";
import { Bridge } from "../src/runtime/bridge/bridge.js";
import { demoModelServer } from "../src/testing/demo-model-server.js";
import { type AskDiffResult, askDiffLines, benchAskDiff } from "./ask-diff.js";
import { type BackendResult, benchBackends, type TurnPhases, type WithBridge } from "./backends.js";
import { benchCluster, type ClusterBenchResult, clusterLines } from "./cluster.js";
import {
  benchClusterBlocks,
  type ClusterBlocksResult,
  clusterBlocksLines,
} from "./cluster-blocks.js";
import { benchClusterRelay, type ClusterRelayResult, clusterRelayLines } from "./cluster-relay.js";
import { benchColdRun, type ColdRunResult, coldRunLines } from "./cold-run.js";
import { benchControlCalls, type ControlCallsResult, controlCallsLines } from "./control-calls.js";
import { benchDeltaLatency, type DeltaLatencyResult, deltaLatencyLines } from "./delta-latency.js";
import { goalTable, recordGoal } from "./goals.js";
import { benchNormalizer, type NormalizerResult, normalizerLines } from "./normalizer.js";
import { benchOpenSessions, type OpenSessionsResult, openSessionsLines } from "./open-sessions.js";
import {
  benchPostgresStore,
  type PostgresStoreBenchResult,
  postgresStoreLines,
} from "./postgres-store.js";
import { benchRelay, type RelayBenchResult, relayLines } from "./relay.js";
import { benchSandboxCost, type SandboxCostResult, sandboxCostLines } from "./sandbox-cost.js";
import { benchSessionList, type SessionListResult, sessionListLines } from "./session-list.js";
import {
  benchSessionMemory,
  type SessionMemoryResult,
  sessionMemoryLines,
} from "./session-memory.js";
import { benchShortTurns, type ShortTurnResult } from "./short-turn.js";
import { benchSidecar, type SidecarBenchResult } from "./sidecar.js";
import { formatMs, formatRate, formatRatio, median, note, percentile } from "./stats.js";
import { benchStore, type StoreBenchResult, storeLines } from "./store.js";
import {
  benchStoreEncryption,
  type EncryptionBenchResult,
  storeEncryptionLines,
} from "./store-encryption.js";
import { benchTerminalEcho, type TerminalEchoResult, terminalEchoLines } from "./terminal-echo.js";
import { benchWebChat, type WebChatBenchResult } from "./web-chat.js";

/** The whole bench must finish within this, or it cleans up and exits 1. */
const OVERALL_DEADLINE_MS = 40 * 60_000;
const TURN_TIMEOUT_MS = 30_000;

const { values } = parseArgs({
  options: {
    events: { type: "string", default: "200000" },
    "latency-turns": { type: "string", default: "5" },
    runs: { type: "string", default: "10" },
    "backend-runs": { type: "string", default: "5" },
    "store-sessions": { type: "string", default: "10000" },
    "store-concurrent": { type: "string", default: "1000" },
    "memory-sessions": { type: "string", default: "1000" },
    "sidecar-turns": { type: "string", default: "5" },
    "sidecar-clients": { type: "string", default: "100" },
    "web-events": { type: "string", default: "10000" },
    "web-renders": { type: "string", default: "5" },
    "web-deltas": { type: "string", default: "10000" },
    "open-sessions": { type: "string", default: "1000" },
    "cold-runs": { type: "string", default: "5" },
    "pg-sessions": { type: "string", default: "1000" },
    "enc-sessions": { type: "string", default: "500" },
    "relay-turns": { type: "string", default: "5" },
    "relay-sessions": { type: "string", default: "1000" },
    only: { type: "string", default: "a,b,c,d,e,f,g,h,i,j,p,q,r,s,t,u,v,w,x,y" },
    "sandbox-turns": { type: "string", default: "20" },
    "list-sessions": { type: "string", default: "10000" },
    "control-calls": { type: "string", default: "50" },
    keystrokes: { type: "string", default: "300" },
  },
});
const only = new Set(values.only.split(",").map((part) => part.trim()));
const positive = (name: string, text: string): number => {
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} wants a positive integer`);
  return value;
};
const events = positive("events", values.events);
const latencyTurns = positive("latency-turns", values["latency-turns"]);
const runs = positive("runs", values.runs);
const backendRuns = positive("backend-runs", values["backend-runs"]);
const storeSessions = positive("store-sessions", values["store-sessions"]);
const storeConcurrent = positive("store-concurrent", values["store-concurrent"]);
const memorySessions = positive("memory-sessions", values["memory-sessions"]);
const sidecarTurns = positive("sidecar-turns", values["sidecar-turns"]);
const sidecarClients = positive("sidecar-clients", values["sidecar-clients"]);
const webEvents = positive("web-events", values["web-events"]);
const webRenders = positive("web-renders", values["web-renders"]);
const webDeltas = positive("web-deltas", values["web-deltas"]);
const openSessions = positive("open-sessions", values["open-sessions"]);
const coldRuns = positive("cold-runs", values["cold-runs"]);
const pgSessions = positive("pg-sessions", values["pg-sessions"]);
const encSessions = positive("enc-sessions", values["enc-sessions"]);
const relayTurns = positive("relay-turns", values["relay-turns"]);

/** A bridge being started or running, and its temp dir. */
interface OpenBridge {
  starting: Promise<Bridge>;
  directory: string;
  /** Set by the first `stop`; later calls share it. */
  stopping?: Promise<void>;
}

/** Bridges not stopped yet: the cleanup stops them when the bench is abandoned. */
const open = new Set<OpenBridge>();
/** Aborts a server start that is still under way when the bench is abandoned. */
const startAbort = new AbortController();

const withBridge: WithBridge = async (backend, use) => {
  startAbort.signal.throwIfAborted();
  const directory = mkdtempSync(join(tmpdir(), "ocb-bench-"));
  note(`starting the bridge (demo model, ${backend})`);
  const bridge: OpenBridge = { directory, starting: startBridge(backend, directory) };
  open.add(bridge);
  try {
    const started = await bridge.starting;
    note(
      started.backend === "subprocess"
        ? "bridge up: opencode run per turn"
        : `bridge up: ${started.server.url}, opencode serve pid ${started.server.pid ?? "?"}`,
    );
    return await use(started, directory);
  } finally {
    await stop(bridge);
  }
};

function startBridge(backend: BackendKind, directory: string): Promise<Bridge> {
  return Bridge.start({
    directory,
    modelServer: demoModelServer,
    backend,
    server: { startupTimeoutMs: 60_000, signal: startAbort.signal },
    // A model that never answers fails the turn instead of holding the bench; on `subprocess`
    // the wait for the first step includes booting `opencode run`, which a busy machine slows.
    watchdog: {
      admitTimeoutMs: backend === "subprocess" ? 25_000 : 10_000,
      silenceTimeoutMs: 10_000,
    },
    modelReadyTimeoutMs: 30_000,
    store: ":memory:",
  });
}

function stop(bridge: OpenBridge): Promise<void> {
  bridge.stopping ??= closeAndRemove(bridge);
  return bridge.stopping;
}

async function closeAndRemove(bridge: OpenBridge): Promise<void> {
  try {
    // A start under way either fails on the abort or gives a bridge that must be closed too.
    const current = await bridge.starting.catch(() => undefined);
    if (current !== undefined) {
      const pid = current.backend === "subprocess" ? undefined : current.server.pid;
      await current.close();
      if (pid !== undefined && isAlive(pid)) note(`warning: opencode serve ${pid} still runs`);
    }
  } finally {
    rmSync(bridge.directory, { recursive: true, force: true });
    open.delete(bridge);
  }
}

let cleaning: Promise<void> | undefined;

/** Stops every bridge still open and removes its temp dir; every call shares the one cleanup. */
function cleanUp(): Promise<void> {
  cleaning ??= stopAll();
  return cleaning;
}

/** Benches that stop what they started themselves once `startAbort` fires. */
const abandoned = new Set<Promise<unknown>>();

async function stopAll(): Promise<void> {
  startAbort.abort();
  await Promise.all([...open].map(stop));
  await Promise.allSettled(abandoned);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let abandoning = false;

async function abandon(why: string, code: number): Promise<void> {
  // Ctrl-C reaches this process twice (from the terminal and relayed by tsx): one cleanup.
  if (abandoning) return;
  abandoning = true;
  note(`bench: ${why}; cleaning up`);
  // Bounded: a cleanup that hangs must not keep the process alive either.
  const forced = setTimeout(() => process.exit(code), 20_000);
  forced.unref();
  await cleanUp().catch((error: unknown) => note(`cleanup failed: ${String(error)}`));
  process.exit(code);
}

const deadline = setTimeout(
  () => void abandon(`no result within ${OVERALL_DEADLINE_MS / 60_000} min`, 1),
  OVERALL_DEADLINE_MS,
);
// `on`, not `once`: a repeated signal with no listener would kill the process mid-cleanup.
process.on("SIGINT", () => void abandon("interrupted", 130));
process.on("SIGTERM", () => void abandon("terminated", 143));

async function main(): Promise<string[]> {
  const lines = [
    `opencode-bridge bench (node ${process.version}, ${availableParallelism()} cores)`,
  ];
  let normalizer: NormalizerResult | undefined;
  let latency: DeltaLatencyResult | undefined;
  let shortTurns: ShortTurnResult[] | undefined;
  let backends: BackendResult[] | undefined;
  let store: StoreBenchResult | undefined;
  let memory: SessionMemoryResult | undefined;
  let sidecar: SidecarBenchResult | undefined;
  let webChat: WebChatBenchResult | undefined;
  let sessions: OpenSessionsResult | undefined;
  let coldRun: ColdRunResult | undefined;
  let postgresStore: PostgresStoreBenchResult | undefined;
  let storeEncryption: EncryptionBenchResult | undefined;
  let relay: RelayBenchResult | undefined;
  let clusterBlocks: ClusterBlocksResult | undefined;
  let cluster: ClusterBenchResult | undefined;
  let clusterRelay: ClusterRelayResult | undefined;
  let askDiff: AskDiffResult | undefined;
  let sandboxCost: SandboxCostResult | undefined;
  let sessionList: SessionListResult | undefined;
  let controlCalls: ControlCallsResult | undefined;
  let terminalEcho: TerminalEchoResult | undefined;

  if (only.has("a")) normalizer = await benchNormalizer({ events, runs: 7, warmups: 2 });
  if (only.has("u")) askDiff = await benchAskDiff({ runs: 5 });
  if (only.has("v")) {
    sandboxCost = await benchSandboxCost({
      turns: positive("sandbox-turns", values["sandbox-turns"]),
      starts: 5,
    });
  }

  if (only.has("w")) {
    sessionList = await benchSessionList({
      sessions: positive("list-sessions", values["list-sessions"]),
    });
  }

  if (only.has("x")) {
    controlCalls = await benchControlCalls({
      calls: positive("control-calls", values["control-calls"]),
    });
  }

  if (only.has("y")) {
    terminalEcho = await benchTerminalEcho({
      keystrokes: positive("keystrokes", values.keystrokes),
    });
  }

  if (only.has("b") || only.has("c")) {
    // (b) and (c) compare with raw `/api` calls: the `serve` backend, whatever OCB_BACKEND says.
    await withBridge("serve", async (bridge, directory) => {
      if (only.has("b")) {
        latency = await benchDeltaLatency(bridge, directory, {
          turns: latencyTurns,
          tokens: 200,
          delayMs: 5,
          timeoutMs: TURN_TIMEOUT_MS,
        });
      }
      if (only.has("c")) {
        shortTurns = await benchShortTurns(bridge, directory, {
          runs,
          warmups: 1,
          timeoutMs: TURN_TIMEOUT_MS,
        });
      }
    });
  }

  if (only.has("d")) {
    backends = await benchBackends(withBridge, {
      runs: backendRuns,
      warmups: 1,
      timeoutMs: TURN_TIMEOUT_MS,
    });
  }

  if (only.has("e")) {
    store = await benchStore({
      sessions: storeSessions,
      eventsPerSession: 100,
      batch: 5,
      concurrent: storeConcurrent,
    });
  }

  if (only.has("f")) {
    memory = await benchSessionMemory({
      sessions: memorySessions,
      events: 10_000,
      longSessions: 10,
      deltasPerTurn: 93,
    });
  }

  if (only.has("g")) {
    sidecar = await withBridge("serve", (bridge) =>
      benchSidecar(bridge, {
        latencyTurns: sidecarTurns,
        tokens: 200,
        delayMs: 5,
        clients: sidecarClients,
        fanOutTokens: 2000,
        timeoutMs: TURN_TIMEOUT_MS,
      }),
    );
  }

  if (only.has("h")) {
    webChat = await withBridge("serve", (bridge) =>
      benchWebChat(bridge, {
        events: webEvents,
        toolsPerTurn: 60,
        renders: webRenders,
        deltas: webDeltas,
        reviewFiles: 200,
        reviewOpens: 5,
        timeoutMs: TURN_TIMEOUT_MS,
      }),
    );
  }

  if (only.has("i")) {
    note("(i) open sessions: the real server behind a counting proxy, a bridge attached");
    const running = benchOpenSessions(
      { sessions: openSessions, turns: 9, concurrent: 50 },
      startAbort.signal,
    );
    abandoned.add(running);
    sessions = await running;
  }

  if (only.has("j")) {
    const running = benchColdRun({ runs: coldRuns, timeoutMs: 60_000, signal: startAbort.signal });
    abandoned.add(running);
    coldRun = await running;
  }

  if (only.has("p")) {
    postgresStore = await benchPostgresStore({
      sessions: pgSessions,
      eventsPerSession: 100,
      batch: 5,
      loneAppends: 500,
    });
  }

  if (only.has("k")) {
    storeEncryption = await benchStoreEncryption({
      sessions: encSessions,
      eventsPerSession: 50,
      batch: 5,
      rounds: 3,
      postgres: true,
    });
  }

  if (only.has("l")) {
    relay = await benchRelay({
      latencyTurns: 5,
      sessions: positive("relay-sessions", values["relay-sessions"]),
      streaming: 50,
      timeoutMs: TURN_TIMEOUT_MS,
    });
  }

  if (only.has("q")) {
    clusterBlocks = await benchClusterBlocks({
      runs: 10,
      sessions: 100,
      feedSessions: 10,
      eventsPerSession: 500,
      followers: 100,
    });
  }

  if (only.has("r") || only.has("t")) {
    cluster = await benchCluster({
      ...{ delivery: only.has("r"), sessions: 10, eventsPerSession: 500, clients: 100 },
      ...{ failover: only.has("t"), failoverRuns: 10 },
    });
  }

  if (only.has("s")) {
    clusterRelay = await benchClusterRelay({
      turns: relayTurns,
      tokens: 200,
      delayMs: 5,
      timeoutMs: TURN_TIMEOUT_MS,
    });
  }

  if (normalizer !== undefined) lines.push(...normalizerLines(normalizer));
  if (latency !== undefined) lines.push(...deltaLatencyLines(latency));
  if (shortTurns !== undefined) lines.push(shortTurnLine(shortTurns));
  if (backends !== undefined) lines.push(...backendLines(backends));
  if (store !== undefined) lines.push(...storeLines(store));
  if (memory !== undefined) lines.push(...sessionMemoryLines(memory));
  if (sidecar !== undefined) lines.push(...sidecarLines(sidecar));
  if (webChat !== undefined) lines.push(...webChatLines(webChat));
  if (sessions !== undefined) lines.push(...openSessionsLines(sessions));
  if (coldRun !== undefined) lines.push(...coldRunLines(coldRun));
  if (postgresStore !== undefined) lines.push(...postgresStoreLines(postgresStore));
  if (storeEncryption !== undefined) lines.push(...storeEncryptionLines(storeEncryption));
  if (relay !== undefined) lines.push(...relayLines(relay));
  if (clusterBlocks !== undefined) lines.push(...clusterBlocksLines(clusterBlocks));
  if (cluster !== undefined) lines.push(...clusterLines(cluster));
  if (clusterRelay !== undefined) lines.push(...clusterRelayLines(clusterRelay));
  if (askDiff !== undefined) lines.push(...askDiffLines(askDiff));
  if (sandboxCost !== undefined) lines.push(...sandboxCostLines(sandboxCost));
  if (sessionList !== undefined) lines.push(...sessionListLines(sessionList));
  if (controlCalls !== undefined) lines.push(...controlCallsLines(controlCalls));
  if (terminalEcho !== undefined) lines.push(...terminalEchoLines(terminalEcho));
  lines.push(...goalTable());
  return lines;
}

function shortTurnLine(results: readonly ShortTurnResult[]): string {
  const parts = results.map((result) => {
    const bridgeMs = median(result.bridgeMs);
    const rawMs = median(result.rawMs);
    return (
      `${result.name}: bridge ${formatMs(bridgeMs)} / raw ${formatMs(rawMs)} = ` +
      formatRatio(bridgeMs / rawMs)
    );
  });
  const n = results[0]?.bridgeMs.length ?? 0;
  return `(c) short turn      ${parts.join("   ")}  (median of ${n})`;
}

function backendLines(results: readonly BackendResult[]): string[] {
  const serveMs = median(results.find((result) => result.backend === "serve")?.ms ?? []);
  const n = results[0]?.ms.length ?? 0;
  const rows = results.map((result) => {
    const ms = median(result.ms);
    return (
      `                    ${result.backend.padEnd(12)}  p50 ${formatMs(ms).padStart(8)}  ` +
      `p90 ${formatMs(percentile(result.ms, 90)).padStart(8)}  ${formatRatio(ms / serveMs)}`
    );
  });
  const phase = (result: BackendResult, name: keyof TurnPhases): string =>
    formatMs(median(result.phases.map((phases) => phases[name])));
  const phaseRows = results.map(
    (result) =>
      `                    ${result.backend.padEnd(12)}  admit ${phase(result, "admit")}  ` +
      `→ first step ${phase(result, "toFirstStep")}  in steps ${phase(result, "inSteps")}  ` +
      `between steps ${phase(result, "betweenSteps")}  → turn end ${phase(result, "toEnd")}`,
  );
  return [
    `(d) backends        tool turn, send → done, n=${n} each; ratio = median / serve median`,
    ...rows,
    "                    where the time goes (medians, as the bridge handed the milestones out):",
    ...phaseRows,
  ];
}

function sidecarLines(result: SidecarBenchResult): string[] {
  const { latency, baseline, overBaseline, fanOut, gcPausesMs } = result;
  const p99 = percentile(latency, 99);
  const baselineP99 = percentile(baseline, 99);
  const goal = recordGoal({
    figure: "(g)",
    what: "delta latency added by the sidecar, p99 (client over WebSocket − in-process Turn)",
    measured: formatMs(p99),
    goal: "≤ 5 ms",
    met: p99 <= 5,
    // A bare WebSocket in the same process lagging the Turn by as much (within 1 ms) says the
    // tail is the machine and the bench process's event loop, not the sidecar or the client.
    ...(p99 > 5 && baselineP99 > 5 && p99 - baselineP99 <= 1
      ? {
          limitedBy: {
            by: "the machine",
            shownBy: `a bare WebSocket hop in the same process lags by p99 ${formatMs(baselineP99)}`,
          },
        }
      : {}),
  });
  const gcMs = gcPausesMs.reduce((sum, ms) => sum + ms, 0);
  return [
    `(g) sidecar delta   n=${latency.length}  p50 ${formatMs(percentile(latency, 50))}  ` +
      `p99 ${formatMs(p99)}  max ${formatMs(Math.max(...latency))}  (client over WebSocket − ` +
      `in-process Turn; Turn yielded ${result.turnDeltas}, client received ` +
      `${result.clientDeltas}; goal p99 ≤ 5 ms: ${goal})`,
    `    baseline        a bare WebSocket hop in the same process p50 ` +
      `${formatMs(percentile(baseline, 50))}  p99 ${formatMs(baselineP99)}  max ` +
      `${formatMs(Math.max(...baseline))}  (n=${baseline.length}, sent as the Turn yields)`,
    `                    client − bare hop, per delta: p50 ${formatMs(percentile(overBaseline, 50))}  ` +
      `p99 ${formatMs(percentile(overBaseline, 99))}  max ${formatMs(Math.max(...overBaseline))}`,
    `                    meanwhile ${gcPausesMs.length} GC pauses in the bench process, ` +
      `${formatMs(gcMs)} in all, longest ${formatMs(Math.max(0, ...gcPausesMs))}; load average ` +
      `${result.load.average.toFixed(1)} on ${result.load.cores} cores`,
    `    sidecar fan-out ${fanOut.clients} clients  ${formatRate(fanOut.sidecarPerSecond)}  ` +
      `in process ${formatRate(fanOut.inProcessPerSecond)}  ` +
      `ratio ${formatRatio(fanOut.sidecarPerSecond / fanOut.inProcessPerSecond)}  ` +
      `(${fanOut.events} events delivered, send → every reader's turn.ended)`,
  ];
}

function webChatLines(result: WebChatBenchResult): string[] {
  const render = median(result.firstRenderMs);
  const firstRender = recordGoal({
    figure: "(h)",
    what: `web chat first render of ${result.sessionEvents} events, p50`,
    measured: formatMs(render),
    goal: "≤ 500 ms",
    met: render <= 500,
  });
  const streaming = recordGoal({
    figure: "(h)",
    what: `web chat longest main-thread task, ${result.deltas} deltas streaming`,
    measured: result.longTasks === 0 ? "< 50 ms" : formatMs(result.longestTaskMs),
    goal: "≤ 50 ms",
    met: result.longTasks === 0,
  });
  const reviewWorst = Math.max(result.reviewFirstMs, ...result.reviewAgainMs);
  const review = recordGoal({
    figure: "(h)",
    what: `web chat review of a turn of ${result.reviewFiles} files, slowest open`,
    measured: formatMs(reviewWorst),
    goal: "≤ 300 ms",
    met: reviewWorst <= 300,
  });
  return [
    `(h) web first render ${result.sessionEvents} events (${result.turns} turns)  ` +
      `p50 ${formatMs(render)}  max ${formatMs(Math.max(...result.firstRenderMs))}  ` +
      `(navigation → last turn drawn, nothing cached, n=${result.firstRenderMs.length}; ` +
      `goal ≤ 500 ms: ${firstRender})`,
    `                    reloaded (assets cached) p50 ${formatMs(median(result.warmRenderMs))}; ` +
      `snapshot asked at p50 ${formatMs(median(result.transcriptAskedMs))}, ` +
      `had at ${formatMs(median(result.transcriptMs))}`,
    `    web review      a turn of ${result.reviewFiles} files: click → all listed, first open ` +
      `${formatMs(result.reviewFirstMs)} (the changes fetched), ` +
      `again p50 ${formatMs(median(result.reviewAgainMs))} (goal ≤ 300 ms: ${review})`,
    `    web streaming   ${result.deltas} deltas  longest task ` +
      (result.longTasks === 0
        ? "under 50 ms (no 'longtask' entry)"
        : `${formatMs(result.longestTaskMs)} (${result.longTasks} over 50 ms)`) +
      `  longest frame gap ${formatMs(result.longestFrameGapMs)}  ` +
      `(goal ≤ 50 ms: ${streaming})`,
  ];
}

try {
  const lines = await main();
  process.stdout.write(`${lines.join("\n")}\n`);
} catch (error) {
  note(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  // The goals of the figures that ended before the failure: a long run is not all lost.
  const measured = goalTable();
  if (measured.length > 0) {
    process.stdout.write(`figures measured before the failure:\n${measured.join("\n")}\n`);
  }
  process.exitCode = 1;
} finally {
  await cleanUp();
  clearTimeout(deadline);
}
// Unref'd: it fires only if some stray handle would otherwise keep the process alive.
setTimeout(() => process.exit(), 5_000).unref();
