/**
 * (r) Durable events through the cluster to WebSocket clients: `clients` clients spread over
 * the given sidecar processes (`ocb serve --cluster`), each subscribed to one of `sessions`
 * sessions. The events are appended by a store-level driver in the bench's process: a
 * `ClusterMember` holding the sessions' leases and appending through its fenced store, as a
 * driving sidecar's bridge does, without OpenCode (a real turn yields a few durable events per
 * step: the rate would be OpenCode's). So every sidecar serves its clients from the durable
 * feed (Postgres NOTIFY, then reads), which is what any sidecar but the driver does.
 */
import { createRequire } from "node:module";
import { ClusterMember } from "../src/cluster/cluster-member.js";
import { PostgresStore } from "../src/store/postgres-store.js";
import type { ClusterProcess } from "../test/support/cluster-process.js";
import { benchEvents } from "./cluster-blocks.js";

export interface DeliveryOptions {
  sessions: number;
  eventsPerSession: number;
  clients: number;
}

export interface DeliveryRun {
  /** How many sidecars the clients were spread over. */
  sidecars: number;
  /** From the first append until the last client had its session's last event. */
  deliveredMs: number;
  /** The driver's appends, first to last commit. */
  writerMs: number;
  /** Clients that got every event of their session once, in seq order from 1. */
  complete: number;
  /** What went wrong for the others (a gap, a repeat, a bound passed). */
  problems: string[];
}

interface MinimalSocket {
  on(event: "message", listener: (data: Buffer) => void): unknown;
  on(event: "open", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  send(data: string): void;
  terminate(): void;
}
const { WebSocket } = createRequire(import.meta.url)("ws") as {
  WebSocket: new (url: string, options: { headers: Record<string, string> }) => MinimalSocket;
};

/** One client: subscribed, checks every durable event's seq, resolves at the last. */
interface Reader {
  caughtUp: Promise<void>;
  done: Promise<number>;
  socket: MinimalSocket;
}

function reader(url: string, token: string, sessionId: string, last: number): Reader {
  const socket = new WebSocket(`${url.replace(/^http/, "ws")}/v1/ws`, {
    headers: { authorization: `Bearer ${token}` },
  });
  let seen = 0;
  let caughtUp = () => {};
  let finish: (at: number) => void = () => {};
  let fail: (error: Error) => void = () => {};
  const done = new Promise<number>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  socket.on("open", () => socket.send(JSON.stringify({ type: "subscribe", sessionId, after: 0 })));
  socket.on("error", (error) => fail(error));
  socket.on("message", (data) => {
    const message = JSON.parse(data.toString("utf8")) as {
      type: string;
      event?: { seq?: number };
    };
    if (message.type === "caught-up") caughtUp();
    const seq = message.type === "event" ? message.event?.seq : undefined;
    if (seq === undefined) return;
    if (seq !== seen + 1) fail(new Error(`${sessionId}: seq ${seq} after ${seen}`));
    seen = seq;
    if (seen === last) finish(performance.now());
  });
  return {
    caughtUp: new Promise((resolve) => {
      caughtUp = resolve;
    }),
    done,
    socket,
  };
}

/**
 * One run: fresh sessions (ids prefixed `label`), `clients` clients over `sidecars`, the
 * driver appending 5 events per session at a time, all sessions at once (group commit).
 */
export async function deliveryRun(
  target: { storeUrl: string; directory: string; token: string; boundMs: number },
  sidecars: readonly ClusterProcess[],
  options: DeliveryOptions,
  label: string,
): Promise<DeliveryRun> {
  const store = await PostgresStore.open(target.storeUrl);
  const driver = await ClusterMember.join(target.storeUrl, store, { holderId: `bench-${label}` });
  const readers: Reader[] = [];
  try {
    const ids = Array.from({ length: options.sessions }, (_, index) => `ses_${label}_${index}`);
    const now = Date.now();
    for (const id of ids) {
      if ((await driver.leases.acquire(id)) === undefined) throw new Error(`no lease for ${id}`);
      await store.saveSession({
        ...{ id, backend: "serve", upstreamId: id, directory: target.directory },
        ...{ state: "open", createdAt: now, updatedAt: now },
      });
    }
    for (let index = 0; index < options.clients; index++) {
      const on = sidecars[index % sidecars.length] as ClusterProcess;
      const id = ids[index % ids.length] as string;
      readers.push(reader(on.url, target.token, id, options.eventsPerSession));
    }
    await bounded(Promise.all(readers.map((r) => r.caughtUp)), target.boundMs, "caught-up");
    const started = performance.now();
    for (let from = 0; from < options.eventsPerSession; from += 5) {
      const count = Math.min(5, options.eventsPerSession - from);
      await Promise.all(ids.map((id) => driver.store.append(id, benchEvents(id, from, count))));
    }
    const writerMs = performance.now() - started;
    const outcomes = await Promise.allSettled(
      readers.map((r) => bounded(r.done, target.boundMs, "the last event")),
    );
    const problems = outcomes.flatMap((o) => (o.status === "rejected" ? [String(o.reason)] : []));
    const ends = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
    for (const id of ids)
      await store.saveSession({ ...(await stored(store, id)), state: "released" });
    return {
      sidecars: sidecars.length,
      deliveredMs: Math.max(writerMs, ...ends.map((at) => at - started)),
      writerMs,
      complete: ends.length,
      problems,
    };
  } finally {
    for (const r of readers) r.socket.terminate();
    await driver.close();
    await store.close();
  }
}

async function stored(store: PostgresStore, id: string) {
  const record = await store.session(id);
  if (record === undefined) throw new Error(`session ${id} vanished`);
  return record;
}

/** `promise`, or a rejection naming `what` after `ms` (a safety net, not a speed check). */
async function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
