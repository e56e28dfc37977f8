/**
 * (i) What open sessions cost a serve bridge: the upstream connections N idle open sessions
 * hold, the heap each one takes, and the bridge's CPU for the same streaming turn with 10
 * sessions open against N open (each turn's events are read by the session they belong to; an
 * idle session should cost nothing per event). The real `opencode` and the scripted model,
 * the bridge attached through a proxy that counts the requests open. Runs alone too:
 * `npx tsx bench/open-sessions.ts [--sessions N] [--turns N]`.
 */
import { spawn } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { Bridge } from "../src/runtime/bridge/bridge.js";
import type { Session } from "../src/runtime/session/session.js";
import { collectGarbage } from "../test/support/collect-garbage.js";
import { startCountingProxy } from "../test/support/counting-proxy.js";
import { type RealServer, startRealServer } from "../test/support/real-server.js";
import { recordGoal } from "./goals.js";
import { formatRatio, median, note, withTimeout } from "./stats.js";

export interface OpenSessionsOptions {
  /** Sessions open at the end (the baseline has 10). */
  sessions: number;
  /** Turns measured at each size. */
  turns: number;
  /** Sessions of the N streaming a turn at once, in the load phase. */
  concurrent: number;
}

export interface OpenSessionsResult {
  options: OpenSessionsOptions;
  /** Requests open upstream with the sessions idle, by kind. */
  connections: { live: number; durable: number; other: number };
  /** Heap bytes per idle open session (serve backend, its streams included). */
  idleBytes: number;
  /**
   * Median bridge CPU (user + system) per turn, with 10 open (measured before opening the
   * others and again after closing them) and with `sessions` open.
   */
  cpuMsAt10: number;
  cpuMsAtN: number;
  /** Events each measured turn handed out. */
  eventsPerTurn: number;
  /** The load phase: `concurrent` of the open sessions streaming a turn at once. */
  load: LoadResult;
}

export interface LoadResult {
  /**
   * Turns that completed with their deltas joined to their text (a tail the live stream lost
   * is handed out from the part's end, see `completedParts`).
   */
  whole: number;
  /** How the others ended, counted (`completed/deltas≠text`, `failed/stalled`, …). */
  broken: Record<string, number>;
  /** The delta figures of the sessions, summed (`Session.stats().deltas`). */
  deltas: { completedParts: number; incompleteParts: number; liveReconnects: number };
  events: number;
  cpuMsPerEvent: number;
  /** Upstream requests open at the peak, and the heap then. */
  peakConnections: number;
  heapMiB: number;
  /** What a raw reader of the live stream, in a process of its own, saw meanwhile. */
  raw: RawReaderCounts;
}

/** The raw baseline's figures (bench/raw-live-reader.mjs). */
export interface RawReaderCounts {
  frames: number;
  deltas: number;
  /** The server ended its stream (OpenCode gives up a subscriber it cannot keep up with). */
  endedByServer: boolean;
}

const BASELINE_SESSIONS = 10;
const PROMPT = `[[chunks 400]] [[reply ${"the quick brown fox jumps over the lazy dog ".repeat(40).trim()}]]`;
/**
 * The load phase's turn: paced as a model streams (100 tokens, 20 ms apart), 50 at once make
 * 2,500 deltas/s. (Bursts of 50 × 400 deltas sent at once overflow the server's subscriber
 * queue of its live stream, which then drops the subscription: deltas are lost upstream.)
 */
const LOAD_TOKENS = 100;
const LOAD_PROMPT = `[[slow ${LOAD_TOKENS} 20]]`;
const TURN_TIMEOUT_MS = 60_000;

/**
 * Runs (i). `signal` abandons it: what it started is stopped (`stopped` resolves then), as
 * when the bench is interrupted.
 */
export async function benchOpenSessions(
  options: OpenSessionsOptions,
  signal?: AbortSignal,
): Promise<OpenSessionsResult> {
  const real = await startRealServer();
  const proxy = await startCountingProxy(real.server.url);
  let bridge: Bridge | undefined;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await bridge?.close();
      await proxy.close();
      await real.close();
    })();
    return stopping;
  };
  const onAbort = () => void stop();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    bridge = await Bridge.start({
      directory: real.directory,
      model: { providerID: "demo", modelID: "demo-1" },
      attach: { url: proxy.url, password: real.server.password ?? "" },
      store: ":memory:", // not the user's store: a thousand sessions of a bench are nobody's
      ...(signal === undefined ? {} : { signal }),
    });
    const started = bridge;
    const open: Session[] = [];
    const openUpTo = async (count: number) => {
      while (open.length < count) {
        signal?.throwIfAborted();
        open.push(await started.createSession({ title: "bench" }));
      }
    };
    note(`(i) ${BASELINE_SESSIONS} sessions open`);
    await openUpTo(BASELINE_SESSIONS);
    const measured = open[0] as Session;
    await turn(measured); // warm-up
    const at10 = await cpuPerTurn(measured, options.turns);

    note(`(i) opening ${options.sessions} sessions`);
    const before = await heap();
    const from = open.length;
    await openUpTo(options.sessions);
    await settle(() => countByKind(proxy.openPaths()).durable === 0);
    const idleBytes = ((await heap()) - before) / (open.length - from);
    const connections = countByKind(proxy.openPaths());
    note(`(i) ${options.sessions} sessions open: ${JSON.stringify(connections)}`);
    const atN = await cpuPerTurn(measured, options.turns);
    note(`(i) ${options.concurrent} of them streaming a turn at once`);
    const raw = startRawReader(real);
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // connected before the load
    const load = await loadPhase(open.slice(0, options.concurrent), proxy, raw);
    // The baseline again, with the others closed: measured before and after the N, so that
    // the engine warming up as the bench goes on favours neither side.
    note(`(i) back to ${BASELINE_SESSIONS} sessions open`);
    for (const session of open.splice(BASELINE_SESSIONS)) await session.close();
    await collectGarbage();
    const at10Again = await cpuPerTurn(measured, options.turns);
    for (const session of open) await session.close();
    return {
      options,
      connections,
      idleBytes,
      cpuMsAt10: median([...at10.samples, ...at10Again.samples]),
      cpuMsAtN: atN.cpuMs,
      eventsPerTurn: atN.events,
      load,
    };
  } finally {
    signal?.removeEventListener("abort", onAbort);
    await stop();
  }
}

/** Runs the streaming turn `turns` times; the median CPU of one, and its events. */
async function cpuPerTurn(session: Session, turns: number) {
  const cpu: number[] = [];
  let events = 0;
  for (let i = 0; i < turns; i++) {
    const start = process.cpuUsage();
    events = await turn(session);
    const used = process.cpuUsage(start);
    cpu.push((used.user + used.system) / 1000);
  }
  return { cpuMs: median(cpu), samples: cpu, events };
}

/** The sessions stream a turn each, at once; each must end whole (deltas joined = its text). */
async function loadPhase(
  sessions: readonly Session[],
  proxy: { openPaths(): string[] },
  raw: { stop(): Promise<RawReaderCounts> },
): Promise<LoadResult> {
  let peakConnections = 0;
  let heapMiB = 0;
  const sample = setInterval(() => {
    const open = proxy.openPaths().length;
    if (open >= peakConnections) {
      peakConnections = open;
      heapMiB = process.memoryUsage().heapUsed / 2 ** 20;
    }
  }, 100);
  const start = process.cpuUsage();
  try {
    const results = await Promise.all(sessions.map((session) => wholeTurn(session)));
    const used = process.cpuUsage(start);
    const events = results.reduce((sum, result) => sum + result.events, 0);
    const deltas = { completedParts: 0, incompleteParts: 0, liveReconnects: 0 };
    for (const session of sessions) {
      const stats = session.stats().deltas;
      deltas.completedParts += stats.completedParts;
      deltas.incompleteParts += stats.incompleteParts;
      deltas.liveReconnects = Math.max(deltas.liveReconnects, stats.liveReconnects);
    }
    const rawCounts = await raw.stop();
    const broken: Record<string, number> = {};
    for (const { how } of results) if (how !== "whole") broken[how] = (broken[how] ?? 0) + 1;
    return {
      whole: results.filter((result) => result.how === "whole").length,
      broken,
      deltas,
      events,
      cpuMsPerEvent: (used.user + used.system) / 1000 / events,
      peakConnections,
      heapMiB,
      raw: rawCounts,
    };
  } finally {
    clearInterval(sample);
    await raw.stop();
  }
}

/** Starts the raw baseline reader of the server's live stream, in a process of its own. */
function startRawReader(real: RealServer): { stop(): Promise<RawReaderCounts> } {
  const child = spawn(
    process.execPath,
    [
      fileURLToPath(new URL("raw-live-reader.mjs", import.meta.url)),
      real.server.url,
      String(real.server.password ?? ""),
      real.directory,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let stopping: Promise<RawReaderCounts> | undefined;
  return {
    stop: () => {
      stopping ??= (async () => {
        if (child.exitCode === null) child.kill("SIGTERM");
        await exited;
        const counts = output.trim().split("\n").at(-1);
        if (counts === undefined || counts === "") throw new Error("the raw reader said nothing");
        return JSON.parse(counts) as RawReaderCounts;
      })();
      return stopping;
    },
  };
}

/**
 * One turn of the load phase, checked whole: it completed, its deltas join to its text, and
 * its durable events came once each with no gap (their seqs follow one another).
 */
async function wholeTurn(session: Session): Promise<{ how: string; events: number }> {
  const sent = await session.send(LOAD_PROMPT, { delivery: "queue" });
  let events = 0;
  let joined = "";
  const seqs: number[] = [];
  await withTimeout(
    (async () => {
      for await (const event of sent.events()) {
        events++;
        if (event.type === "text.delta") joined += event.data.delta;
        if (event.seq !== undefined) seqs.push(event.seq);
      }
    })(),
    TURN_TIMEOUT_MS * 3,
    "a turn of the load phase",
  );
  const result = await sent.done();
  if (result.outcome !== "completed") return { how: `${result.outcome}/${result.reason}`, events };
  if (seqs.some((seq, index) => index > 0 && seq !== (seqs[index - 1] ?? 0) + 1)) {
    return { how: "completed/durable seq gap or repeat", events };
  }
  return { how: joined === result.text ? "whole" : "completed/deltas≠text", events };
}

async function turn(session: Session): Promise<number> {
  const sent = await session.send(PROMPT, { delivery: "queue" });
  let events = 0;
  await withTimeout(
    (async () => {
      for await (const _event of sent.events()) events++;
    })(),
    TURN_TIMEOUT_MS,
    "a measured turn",
  );
  const result = await sent.done();
  if (result.outcome !== "completed") throw new Error(`a measured turn ${result.outcome}`);
  return events;
}

function countByKind(paths: readonly string[]) {
  const counts = { live: 0, durable: 0, other: 0 };
  for (const path of paths) {
    if (path === "/api/event") counts.live++;
    else if (/^\/api\/session\/[^/]+\/event$/.test(path)) counts.durable++;
    else counts.other++;
  }
  return counts;
}

/**
 * Lets the sessions settle before measuring: until `settled` (idle sessions let their durable
 * streams go after a linger of 10 s), for at most 30 s.
 */
async function settle(settled: () => boolean): Promise<void> {
  const until = Date.now() + 30_000;
  while (!settled() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 250));
}

async function heap(): Promise<number> {
  await collectGarbage();
  return process.memoryUsage().heapUsed;
}

/** The figures, with their goals. */
export function openSessionsLines(result: OpenSessionsResult): string[] {
  const { connections, options } = result;
  const upstream = connections.live + connections.durable;
  const ratio = result.cpuMsAtN / result.cpuMsAt10;
  const heapKiB = `${(result.idleBytes / 1024).toFixed(1)} KiB`;
  const streams = recordGoal({
    figure: "(i)",
    what: `upstream event streams of ${options.sessions} idle open sessions`,
    measured: String(upstream),
    goal: "≤ 2",
    met: upstream <= 2,
  });
  const heap = recordGoal({
    figure: "(i)",
    what: "heap per idle open session",
    measured: heapKiB,
    goal: "≤ 50 KiB",
    met: result.idleBytes <= 50 * 1024,
  });
  const cpu = recordGoal({
    figure: "(i)",
    what: `bridge CPU per turn, ${options.sessions} open against ${BASELINE_SESSIONS}`,
    measured: formatRatio(ratio),
    goal: "≤ 1.2x",
    met: ratio <= 1.2,
  });
  const load = recordGoal({
    figure: "(i)",
    what: `load: ${options.concurrent} of ${options.sessions} sessions streaming at once, turns whole`,
    measured: `${result.load.whole} of ${options.concurrent}`,
    goal: "all",
    met: result.load.whole === options.concurrent,
  });
  return [
    `(i) open sessions    ${options.sessions} idle: ${upstream} upstream event streams ` +
      `(${connections.live} live, ${connections.durable} durable)  goal ≤ 2: ${streams}`,
    `                    heap per idle open session ${heapKiB} ` +
      `(serve, streams included)  goal ≤ 50 KiB: ${heap}`,
    `                    bridge CPU per turn (${result.eventsPerTurn} events) with ` +
      `${options.sessions} open ${result.cpuMsAtN.toFixed(0)} ms against ${BASELINE_SESSIONS} open ` +
      `${result.cpuMsAt10.toFixed(0)} ms  ratio ${formatRatio(ratio)}  goal ≤ 1.2x: ${cpu}`,
    `                    load: ${options.concurrent} of them streaming a turn at once: ` +
      `${result.load.whole} completed whole (deltas joined to their text, durable seqs ` +
      `without gap or repeat; goal all: ${load})` +
      (result.load.whole === options.concurrent
        ? ""
        : ` (others: ${JSON.stringify(result.load.broken)})`) +
      `; ${result.load.events} events, ${(result.load.cpuMsPerEvent * 1000).toFixed(0)} µs CPU per event ` +
      `(the bench process: bridge, scripted model, proxy); peak ${result.load.peakConnections} upstream ` +
      `requests; heap ${result.load.heapMiB.toFixed(0)} MiB; delta losses upstream: ` +
      `${result.load.deltas.liveReconnects} live reconnects, ${result.load.deltas.completedParts} parts ` +
      `completed from their end, ${result.load.deltas.incompleteParts} incomplete; the raw baseline ` +
      `(a reader of /api/event in a process of its own) saw ${result.load.raw.deltas} deltas of the ` +
      `${options.concurrent * LOAD_TOKENS} sent` +
      (result.load.raw.endedByServer ? ", its stream ended by the server" : ""),
  ];
}

const runAlone =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;

if (runAlone) {
  const { values } = parseArgs({
    options: {
      sessions: { type: "string", default: "1000" },
      turns: { type: "string", default: "9" },
      concurrent: { type: "string", default: "50" },
    },
  });
  const result = await benchOpenSessions({
    sessions: Number(values.sessions),
    turns: Number(values.turns),
    concurrent: Number(values.concurrent),
  });
  process.stdout.write(`${openSessionsLines(result).join("\n")}\n`);
}
