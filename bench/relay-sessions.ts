/**
 * (l2) Many sessions through one relayed device: the device (one `remoteTransport`, so one
 * relay connection and one tunnel) makes `sessions` sessions through the relay and subscribes
 * to every one, with as few clients as the sidecar's subscriptions per WebSocket allow (256 by
 * default: 4 tunnelled sockets for 1,000); then `streaming` of them each get a turn, all sent at once.
 * Each streamed turn must be whole: the durable events the device's subscription received equal
 * the transcript read straight from the sidecar (same ids, same order), and it ended completed.
 */
import type { BridgeClient } from "../src/client/index.js";
import type { CanonicalEvent } from "../src/events/canonical.js";
import { DEFAULT_LIMITS } from "../src/sidecar/limits.js";
import { type Followed, followSession } from "../test/support/followed-session.js";
import type { Device, RelayRig } from "./relay-rig.js";
import { note, withTimeout } from "./stats.js";

export interface RelaySessionsOptions {
  sessions: number;
  streaming: number;
  /** `[[slow TOKENS DELAYMS]]` for each streamed turn. */
  tokens: number;
  delayMs: number;
  timeoutMs: number;
}

export interface RelaySessionsResult {
  options: RelaySessionsOptions;
  /** Tunnelled WebSockets the subscriptions took. */
  sockets: number;
  /** Making the sessions through the relay, and subscribing to all of them. */
  createMs: number;
  subscribeMs: number;
  /** From sending the streamed turns, all at once, to the last one's end at the device. */
  wallMs: number;
  /** Streamed turns whose durable events at the device equal the transcript, ended completed. */
  wholeTurns: number;
  /** Calls that failed and turns not whole, with the first few. */
  errors: string[];
  /** The bench process's peak RSS (the relay, the sidecar and the device all run in it). */
  peakRssBytes: number;
}

/** Sessions made at once: the device's calls share one tunnel, the bridge one server. */
const CREATE_BATCH = 20;

export async function benchRelaySessions(
  rig: RelayRig,
  device: Device,
  options: RelaySessionsOptions,
): Promise<RelaySessionsResult> {
  let peakRssBytes = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRssBytes = Math.max(peakRssBytes, process.memoryUsage().rss);
  }, 200);
  const followed: Followed[] = [];
  const errors: string[] = [];
  try {
    const ids: string[] = [];
    const creating = performance.now();
    while (ids.length < options.sessions) {
      const batch = Math.min(CREATE_BATCH, options.sessions - ids.length);
      const made = await Promise.all(
        Array.from({ length: batch }, (_, index) =>
          device.client.createSession({ title: `relayed ${ids.length + index}` }),
        ),
      );
      ids.push(...made.map((info) => info.id));
      if (ids.length % 200 === 0) note(`(l2) ${ids.length} sessions made through the relay`);
    }
    const createMs = performance.now() - creating;

    const subscribing = performance.now();
    let client: BridgeClient = device.client;
    for (const [index, id] of ids.entries()) {
      if (index > 0 && index % DEFAULT_LIMITS.wsSubscriptions === 0) client = device.newClient();
      followed.push(followSession(client, id, options.timeoutMs));
    }
    await withTimeout(
      Promise.all(followed.map((one) => one.subscription.caughtUp)),
      options.timeoutMs,
      `${ids.length} subscriptions' catch-up`,
    );
    const subscribeMs = performance.now() - subscribing;
    note(`(l2) ${ids.length} sessions subscribed; ${options.streaming} turns at once`);

    const started = performance.now();
    const prompt = `[[slow ${options.tokens} ${options.delayMs}]]`;
    const streamed = followed.slice(0, options.streaming);
    const turns = await Promise.allSettled(
      streamed.map(async (one, index) => {
        const id = ids[index] ?? "";
        const { turnId } = await device.client.send(id, { text: prompt, delivery: "queue" });
        const events = await one.turn(turnId);
        return { id, turnId, events };
      }),
    );
    const wallMs = performance.now() - started;
    let wholeTurns = 0;
    for (const turn of turns) {
      if (turn.status === "rejected") {
        errors.push(String(turn.reason));
        continue;
      }
      const problem = await notWhole(rig, turn.value);
      if (problem === undefined) wholeTurns += 1;
      else errors.push(`session ${turn.value.id}: ${problem}`);
    }
    const sockets = Math.ceil(ids.length / DEFAULT_LIMITS.wsSubscriptions);
    return { options, sockets, createMs, subscribeMs, wallMs, wholeTurns, errors, peakRssBytes };
  } finally {
    clearInterval(sampler);
    for (const one of followed) one.subscription.close();
  }
}

/** Why a streamed turn is not whole at the device, or undefined when it is. */
async function notWhole(
  rig: RelayRig,
  turn: { id: string; turnId: string; events: CanonicalEvent[] },
): Promise<string | undefined> {
  const transcript = await rig.real.client.transcript(turn.id);
  const durableIds = (events: CanonicalEvent[]) =>
    events
      .filter((event) => event.durable && event.turnId === turn.turnId)
      .map((event) => event.id);
  const got = durableIds(turn.events);
  const want = durableIds(transcript);
  if (want.length === 0) return "the transcript holds none of the turn's events";
  if (got.join() !== want.join()) {
    return `${got.length} durable events at the device, ${want.length} in the transcript`;
  }
  const end = turn.events.find((event) => event.type === "turn.ended");
  if (end?.type !== "turn.ended" || end.data.outcome !== "completed") {
    return `the turn ended ${end?.type === "turn.ended" ? end.data.outcome : "never"}`;
  }
  return undefined;
}
