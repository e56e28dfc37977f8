/**
 * (g) What the sidecar adds, measured in one process against the same bridge:
 *   - per-delta latency: for each text delta, the time a `BridgeClient` subscribed over the
 *     sidecar's WebSocket received it minus the time the in-process `Turn` yielded it
 *     (matched by the canonical event id);
 *   - its baseline: the same deltas over a bare WebSocket in the same process (a `ws` server
 *     and client, nothing else), sent as the Turn yields each one. Client and sidecar share
 *     the bench's event loop and the machine's 2 cores, so a delta waits for whatever else
 *     runs first (other processes, a GC pause); the bare hop waits for the same, with none of
 *     the sidecar's or the client's work: what the sidecar adds is the difference;
 *   - fan-out: events per second delivered to 100 subscribed clients (one WebSocket each)
 *     during a turn, against 100 in-process readers (`session.events()`) of the same turn.
 * The turns are sent in process (`session.send`) on the session the sidecar follows.
 */
import { once, setMaxListeners } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism, loadavg } from "node:os";
import { PerformanceObserver } from "node:perf_hooks";
import { BridgeClient, type CanonicalEvent, type Subscription } from "../src/client/index.js";
import type { Bridge } from "../src/runtime/bridge/bridge.js";
import type { Session } from "../src/runtime/session/session.js";
import { startSidecar } from "../src/sidecar/sidecar.js";
import { NodeWebSocket, type ServerSocket, WebSocketServer } from "../test/support/ws.js";
import { note, withTimeout } from "./stats.js";

export interface SidecarBenchOptions {
  /** Turns whose deltas are timed. */
  latencyTurns: number;
  /** `[[slow TOKENS DELAYMS]]` for the latency turns. */
  tokens: number;
  delayMs: number;
  /** Subscribed clients (and in-process readers) for the fan-out figure. */
  clients: number;
  /** Deltas of the fan-out turn (no delay between them). */
  fanOutTokens: number;
  timeoutMs: number;
}

export interface SidecarBenchResult {
  /** Client receive time − in-process Turn time, ms, one per matched delta. */
  latency: number[];
  /** The bare WebSocket hop's receive time − the Turn's time, ms, one per matched delta. */
  baseline: number[];
  /** The client's receive time − the bare hop's, ms, per delta both received: the paired difference. */
  overBaseline: number[];
  /** Deltas the Turn yielded / the client received. */
  turnDeltas: number;
  clientDeltas: number;
  /** The bench process's GC pauses while the timed turns ran, ms each. */
  gcPausesMs: number[];
  /** The 1-minute load average at the end of the timed turns, and the cores. */
  load: { average: number; cores: number };
  fanOut: { clients: number; events: number; sidecarPerSecond: number; inProcessPerSecond: number };
}

export async function benchSidecar(
  bridge: Bridge,
  options: SidecarBenchOptions,
): Promise<SidecarBenchResult> {
  const token = "bench-token-0123456789abcdef";
  const sidecar = await startSidecar({ bridge, token });
  const clients: BridgeClient[] = [];
  const newClient = (): BridgeClient => {
    const client = new BridgeClient({ url: sidecar.url, token, WebSocket: NodeWebSocket });
    clients.push(client);
    return client;
  };
  try {
    const client = newClient();
    const info = await client.createSession({ title: "bench sidecar" });
    // The bridge hands out the session it follows for the sidecar: the same object.
    const session = await bridge.openSession(info.id);
    await runTurn(session, "[[reply warm]]", options.timeoutMs);

    const turnAt = new Map<string, number>();
    const clientAt = new Map<string, number>();
    const bareAt = new Map<string, number>();
    const bare = await bareHop((id) => {
      if (!bareAt.has(id)) bareAt.set(id, performance.now());
    });
    const subscription = client.subscribe(info.id, { after: session.lastSeq });
    await withTimeout(subscription.caughtUp, options.timeoutMs, "the client's catch-up");
    const receiving = receiveDeltas(subscription, clientAt);
    const gcPausesMs: number[] = [];
    const gc = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) gcPausesMs.push(entry.duration);
    });
    gc.observe({ entryTypes: ["gc"] });
    try {
      for (let turn = 0; turn < options.latencyTurns; turn++) {
        const prompt = `[[slow ${options.tokens} ${options.delayMs}]]`;
        await runTurn(session, prompt, options.timeoutMs, turnAt, bare.send);
        note(`(g) turn ${turn + 1}/${options.latencyTurns}: ${turnAt.size} deltas`);
      }
      // The client may still be a few messages behind the Turn.
      await waitUntil(() => clientAt.size >= turnAt.size && bareAt.size >= turnAt.size, 2_000);
    } finally {
      gc.disconnect();
      await bare.close();
    }
    const load = { average: loadavg()[0] ?? Number.NaN, cores: availableParallelism() };
    subscription.close();
    await receiving;
    const latency: number[] = [];
    const baseline: number[] = [];
    const overBaseline: number[] = [];
    for (const [id, at] of turnAt) {
      const received = clientAt.get(id);
      if (received !== undefined) latency.push(received - at);
      const bareReceived = bareAt.get(id);
      if (bareReceived !== undefined) baseline.push(bareReceived - at);
      if (received !== undefined && bareReceived !== undefined) {
        overBaseline.push(received - bareReceived);
      }
    }

    const fanOut = await benchFanOut(session, newClient, options);
    return {
      latency,
      baseline,
      overBaseline,
      turnDeltas: turnAt.size,
      clientDeltas: clientAt.size,
      gcPausesMs,
      load,
      fanOut,
    };
  } finally {
    for (const client of clients) client.close();
    await sidecar.close();
  }
}

/**
 * The baseline's WebSocket: a bare `ws` server and client in this process, on loopback. `send`
 * writes a delta's id from the server side; the client hands each to `received` on arrival
 * (bench (l) chains a few of them).
 */
export async function bareHop(
  received: (id: string) => void,
): Promise<{ send: (id: string) => void; close: () => Promise<void> }> {
  const http = createServer();
  const wss = new WebSocketServer({ noServer: true });
  const accepted = new Promise<ServerSocket>((resolve) => {
    http.on("upgrade", (request, socket, head) =>
      wss.handleUpgrade(request, socket, head, (ws) => resolve(ws)),
    );
  });
  http.listen(0, "127.0.0.1");
  await once(http, "listening");
  const { port } = http.address() as AddressInfo;
  const client = new NodeWebSocket(`ws://127.0.0.1:${port}`);
  client.addEventListener("message", (event) => received(String(event.data)));
  const server = await accepted;
  return {
    send: (id) => server.send(id),
    close: async () => {
      client.close();
      server.terminate();
      wss.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

/**
 * Notes when each text delta of `subscription` arrived, by event id, and passes its id to
 * `forward` (bench (l) too).
 */
export async function receiveDeltas(
  subscription: Subscription,
  at: Map<string, number>,
  forward?: (id: string) => void,
): Promise<void> {
  for await (const event of subscription) {
    if (event.type === "text.delta" && !at.has(event.id)) {
      at.set(event.id, performance.now());
      forward?.(event.id);
    }
  }
}

/** Events/s to `clients` subscribed clients, then to as many in-process readers, one turn each. */
async function benchFanOut(
  session: Session,
  newClient: () => BridgeClient,
  options: SidecarBenchOptions,
): Promise<SidecarBenchResult["fanOut"]> {
  const prompt = `[[slow ${options.fanOutTokens} 0]]`;
  // Over the sidecar: a client (one socket) per reader.
  const after = session.lastSeq;
  const subscriptions = Array.from({ length: options.clients }, () =>
    newClient().subscribe(session.id, { after }),
  );
  await withTimeout(
    Promise.all(subscriptions.map((s) => s.caughtUp)),
    options.timeoutMs,
    `${options.clients} clients' catch-up`,
  );
  const sidecar = await timedFanOut(session, prompt, subscriptions, options.timeoutMs);
  for (const subscription of subscriptions) subscription.close();
  note(`(g) fan-out over the sidecar: ${sidecar.events} events in ${sidecar.ms.toFixed(0)} ms`);

  // In process: the same number of readers of the session's events.
  const stop = new AbortController();
  // One signal for every reader: as many abort listeners, on purpose.
  setMaxListeners(options.clients + 10, stop.signal);
  const start = session.lastSeq;
  const readers = Array.from({ length: options.clients }, () =>
    session.events({ after: start, signal: stop.signal }),
  );
  const inProcess = await timedFanOut(session, prompt, readers, options.timeoutMs);
  stop.abort();
  note(`(g) fan-out in process: ${inProcess.events} events in ${inProcess.ms.toFixed(0)} ms`);
  return {
    clients: options.clients,
    events: sidecar.events,
    sidecarPerSecond: (sidecar.events / sidecar.ms) * 1000,
    inProcessPerSecond: (inProcess.events / inProcess.ms) * 1000,
  };
}

/**
 * Sends `prompt` and reads every reader until its `turn.ended`: events delivered (all readers),
 * and ms from the send to the last reader's end.
 */
async function timedFanOut(
  session: Session,
  prompt: string,
  readers: AsyncIterable<CanonicalEvent>[],
  timeoutMs: number,
): Promise<{ events: number; ms: number }> {
  let events = 0;
  const started = performance.now();
  const reading = readers.map(async (reader) => {
    for await (const event of reader) {
      events += 1;
      if (event.type === "turn.ended") return;
    }
  });
  const turn = await session.send(prompt, { delivery: "queue" });
  await withTimeout(
    Promise.all(reading),
    timeoutMs,
    `${readers.length} readers of turn ${turn.id}`,
  );
  const ms = performance.now() - started;
  await withTimeout(turn.done(), timeoutMs, `turn ${turn.id}`);
  return { events, ms };
}

/**
 * Sends `text` in process and reads the turn to its end, noting when the Turn yielded each
 * delta (`seen`, by event id) and passing its id to `forward` (bench (l) too).
 */
export async function runTurn(
  session: Session,
  text: string,
  timeoutMs: number,
  seen?: Map<string, number>,
  /** Each delta's id, as the Turn yields it (the baseline's bare WebSocket). */
  forward?: (id: string) => void,
): Promise<void> {
  const signal = AbortSignal.timeout(timeoutMs);
  const turn = await session.send(text, { delivery: "queue", signal });
  for await (const event of turn.events({ signal })) {
    if (event.type === "text.delta" && seen !== undefined && !seen.has(event.id)) {
      seen.set(event.id, performance.now());
      forward?.(event.id);
    }
  }
  const result = await withTimeout(turn.done(), timeoutMs, `turn ${turn.id}`);
  if (result.outcome !== "completed") {
    throw new Error(`turn ${turn.id} ended ${result.outcome}: ${result.error?.message ?? ""}`);
  }
}

/** Waits until `condition` holds or `ms` have passed, whichever comes first. */
export async function waitUntil(condition: () => boolean, ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (!condition() && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
