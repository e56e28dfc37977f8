/**
 * (g) What the sidecar adds, measured in one process against the same bridge:
 *   - per-delta latency: for each text delta, the time a `BridgeClient` subscribed over the
 *     sidecar's WebSocket received it minus the time the in-process `Turn` yielded it
 *     (matched by the canonical event id);
 *   - fan-out: events per second delivered to 100 subscribed clients (one WebSocket each)
 *     during a turn, against 100 in-process readers (`session.events()`) of the same turn.
 * The turns are sent in process (`session.send`) on the session the sidecar follows.
 */
import { setMaxListeners } from "node:events";
import { BridgeClient, type CanonicalEvent, type Subscription } from "../src/client/index.js";
import type { Bridge } from "../src/runtime/bridge/bridge.js";
import type { Session } from "../src/runtime/session/session.js";
import { startSidecar } from "../src/sidecar/sidecar.js";
import { NodeWebSocket } from "../test/support/ws.js";
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
  /** Deltas the Turn yielded / the client received. */
  turnDeltas: number;
  clientDeltas: number;
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
    const subscription = client.subscribe(info.id, { after: session.lastSeq });
    await withTimeout(subscription.caughtUp, options.timeoutMs, "the client's catch-up");
    const receiving = receiveDeltas(subscription, clientAt);
    for (let turn = 0; turn < options.latencyTurns; turn++) {
      const prompt = `[[slow ${options.tokens} ${options.delayMs}]]`;
      await runTurn(session, prompt, options.timeoutMs, turnAt);
      note(`(g) turn ${turn + 1}/${options.latencyTurns}: ${turnAt.size} deltas`);
    }
    // The client may still be a few messages behind the Turn.
    await waitUntil(() => clientAt.size >= turnAt.size, 2_000);
    subscription.close();
    await receiving;
    const latency: number[] = [];
    for (const [id, at] of turnAt) {
      const received = clientAt.get(id);
      if (received !== undefined) latency.push(received - at);
    }

    const fanOut = await benchFanOut(session, newClient, options);
    return { latency, turnDeltas: turnAt.size, clientDeltas: clientAt.size, fanOut };
  } finally {
    for (const client of clients) client.close();
    await sidecar.close();
  }
}

async function receiveDeltas(subscription: Subscription, at: Map<string, number>): Promise<void> {
  for await (const event of subscription) {
    if (event.type === "text.delta" && !at.has(event.id)) at.set(event.id, performance.now());
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

async function runTurn(
  session: Session,
  text: string,
  timeoutMs: number,
  seen?: Map<string, number>,
): Promise<void> {
  const signal = AbortSignal.timeout(timeoutMs);
  const turn = await session.send(text, { delivery: "queue", signal });
  for await (const event of turn.events({ signal })) {
    if (event.type === "text.delta" && seen !== undefined && !seen.has(event.id)) {
      seen.set(event.id, performance.now());
    }
  }
  const result = await withTimeout(turn.done(), timeoutMs, `turn ${turn.id}`);
  if (result.outcome !== "completed") {
    throw new Error(`turn ${turn.id} ended ${result.outcome}: ${result.error?.message ?? ""}`);
  }
}

async function waitUntil(condition: () => boolean, ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (!condition() && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
