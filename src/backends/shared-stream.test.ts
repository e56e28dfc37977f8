import { describe, expect, it } from "vitest";
import { AbortError, OpencodeApiError } from "../errors.js";
import type { Parsed } from "../opencode-protocol/common.js";
import type { StreamConnectionChange } from "../transport/transport.js";
import { silentLogger } from "../util/logger.js";
import { SharedStream } from "./shared-stream.js";

interface Event {
  type: string;
  session?: string;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A source whose one connection the test feeds by hand; counts the connections it opened. */
function handFedSource() {
  const opened: { signal: AbortSignal; onConnection: (change: StreamConnectionChange) => void }[] =
    [];
  let push: ((item: Event | Error) => void) | undefined;
  const source = {
    open(options: { signal: AbortSignal; onConnection: (change: StreamConnectionChange) => void }) {
      opened.push(options);
      const queue: (Event | Error)[] = [];
      let wake: (() => void) | undefined;
      push = (item) => {
        queue.push(item);
        wake?.();
      };
      options.signal.addEventListener("abort", () => wake?.());
      return (async function* () {
        for (;;) {
          if (options.signal.aborted) throw new AbortError("closed");
          const item = queue.shift();
          if (item instanceof Error) throw item;
          if (item !== undefined) {
            yield { event: item } as unknown as Parsed<Event>;
            continue;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
      })();
    },
    keyOf: (parsed: Parsed<Event>) => (parsed.event as Event).session,
    isConnected: (parsed: Parsed<Event>) => parsed.event.type === "server.connected",
    isSubscribed: (parsed: Parsed<Event>) =>
      !["server.connected", "heartbeat"].includes(parsed.event.type),
    logger: silentLogger,
  };
  return {
    source,
    opened,
    send: async (event: Event | Error) => {
      push?.(event);
      await tick();
      await tick();
    },
  };
}

/** Records a session's share in `got`, until `signal` aborts (it leaves) or the stream ends. */
function reader(stream: SharedStream<Event>, key: string, signal: AbortSignal) {
  const got: string[] = [];
  let finish = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let finished = false;
  const end = (what: string) => {
    if (finished) return;
    finished = true;
    got.push(what);
    finish();
  };
  const leave = stream.join(key, {
    event: (parsed) => got.push(parsed.event.type),
    connected: () => got.push("connected"),
    heard: () => {},
    connection: (change) => got.push(change.state),
    ended: (error) => end(`ended: ${String(error)}`),
  });
  signal.addEventListener("abort", () => {
    if (finished) return;
    leave();
    end("left");
  });
  return { got, done };
}

describe("a shared stream", () => {
  it("opens one connection for many sessions and hands each only its own events", async () => {
    const fed = handFedSource();
    const stream = new SharedStream(fed.source);
    const stop = new AbortController();
    const a = reader(stream, "ses_a", stop.signal);
    const b = reader(stream, "ses_b", stop.signal);
    await tick();
    expect(fed.opened).toHaveLength(1);
    await fed.send({ type: "server.connected" });
    await fed.send({ type: "delta", session: "ses_a" });
    await fed.send({ type: "delta", session: "ses_c" });
    await fed.send({ type: "ask", session: "ses_b" });
    await fed.send({ type: "heartbeat" });
    expect(a.got).toEqual(["connected", "delta"]);
    expect(b.got).toEqual(["connected", "ask"]);
    stop.abort();
    await Promise.all([a.done, b.done]);
    expect(stream.size).toBe(0);
    expect(fed.opened[0]?.signal.aborted).toBe(true); // the last one out closed it
  });

  it("tells a session joining an open stream that it is connected, or that it is reconnecting", async () => {
    const fed = handFedSource();
    const stream = new SharedStream(fed.source);
    const stop = new AbortController();
    const first = reader(stream, "ses_a", stop.signal);
    await tick();
    await fed.send({ type: "server.connected" });
    const second = reader(stream, "ses_b", stop.signal);
    await tick();
    expect(second.got).toEqual(["connected"]);
    fed.opened[0]?.onConnection({ state: "reconnecting", attempt: 1, reason: "x", retryInMs: 5 });
    const third = reader(stream, "ses_c", stop.signal);
    await tick();
    expect(third.got).toEqual(["reconnecting"]);
    expect(first.got).toEqual(["connected", "reconnecting"]);
    expect(fed.opened).toHaveLength(1);
    stop.abort();
  });

  it("tells every session the first event each connection passed on, whoever's it is, before it; and one that joins later the newest before its join", async () => {
    const fed = handFedSource();
    const stream = new SharedStream(fed.source);
    const told: string[] = [];
    const listener = (name: string) => ({
      event: (parsed: Parsed<Event>) => told.push(`${name} ${parsed.event.type}`),
      connected: () => told.push(`${name} connected`),
      heard: (parsed: Parsed<Event>) => told.push(`${name} heard ${parsed.event.type}`),
      connection: () => {},
      ended: () => {},
    });
    const leaveA = stream.join("ses_a", listener("a"));
    await tick();
    await fed.send({ type: "server.connected" });
    await fed.send({ type: "heartbeat" }); // made by the stream: it dates nothing
    await fed.send({ type: "delta-1", session: "ses_c" });
    await fed.send({ type: "delta-2", session: "ses_a" });
    const leaveB = stream.join("ses_b", listener("b"));
    await fed.send({ type: "server.connected" }); // a new connection: heard anew
    await fed.send({ type: "delta-3", session: "ses_b" });
    expect(told).toEqual([
      "a connected",
      "a heard delta-1",
      "a delta-2",
      "b connected",
      "b heard delta-2",
      "a connected",
      "b connected",
      "a heard delta-3",
      "b heard delta-3",
      "b delta-3",
    ]);
    leaveA();
    leaveB();
  });

  it("keeps a (re)connection in order with the events that came before it", async () => {
    const fed = handFedSource();
    const stream = new SharedStream(fed.source);
    const stop = new AbortController();
    const a = reader(stream, "ses_a", stop.signal);
    await tick();
    await fed.send({ type: "server.connected" });
    await fed.send({ type: "delta-1", session: "ses_a" });
    await fed.send({ type: "server.connected" }); // a reconnect
    await fed.send({ type: "delta-2", session: "ses_a" });
    expect(a.got).toEqual(["connected", "delta-1", "connected", "delta-2"]);
    stop.abort();
    await a.done;
  });

  it("reconnect() drops a connection that hangs and opens a new one at once, sessions kept", async () => {
    const fed = handFedSource();
    const stream = new SharedStream(fed.source);
    const stop = new AbortController();
    const a = reader(stream, "ses_a", stop.signal);
    await tick();
    // The first connection never answers (it reached a server that was still starting).
    stream.reconnect();
    await tick();
    expect(fed.opened).toHaveLength(2);
    expect(fed.opened[0]?.signal.aborted).toBe(true);
    await fed.send({ type: "server.connected" });
    await fed.send({ type: "delta", session: "ses_a" });
    expect(a.got).toEqual(["connected", "delta"]);
    expect(stream.size).toBe(1);
    stop.abort();
    await a.done;
  });

  it("retryNow() connects again at once while the stream is down, once until that connection reports", async () => {
    const fed = handFedSource();
    const stream = new SharedStream(fed.source);
    const stop = new AbortController();
    const a = reader(stream, "ses_a", stop.signal);
    await tick();
    stream.retryNow(); // connecting for the first time, not down: nothing to hurry
    await fed.send({ type: "server.connected" });
    stream.retryNow(); // up
    expect(fed.opened).toHaveLength(1);
    fed.opened[0]?.onConnection({ state: "reconnecting", attempt: 1, reason: "x", retryInMs: 9 });
    // Its backoff, or an attempt a starting server took and never answers, is dropped.
    stream.retryNow();
    stream.retryNow(); // many sessions asking at once make one attempt
    await tick();
    expect(fed.opened).toHaveLength(2);
    expect(fed.opened[0]?.signal.aborted).toBe(true);
    fed.opened[1]?.onConnection({ state: "reconnecting", attempt: 1, reason: "y", retryInMs: 9 });
    stream.retryNow(); // that one reported (it failed too): asking again tries again
    await tick();
    expect(fed.opened).toHaveLength(3);
    fed.opened[2]?.onConnection({ state: "connected" });
    await fed.send({ type: "server.connected" });
    await fed.send({ type: "delta", session: "ses_a" });
    expect(a.got).toEqual([
      "connected",
      "reconnecting",
      "reconnecting",
      "connected",
      "connected",
      "delta",
    ]);
    stop.abort();
    await a.done;
  });

  it("opens a new connection for the next session once the last one left", async () => {
    const fed = handFedSource();
    let idle = 0;
    const stream = new SharedStream(fed.source, () => idle++);
    const first = new AbortController();
    const a = reader(stream, "ses_a", first.signal);
    await tick();
    first.abort();
    await a.done;
    expect(idle).toBe(1);
    const second = new AbortController();
    const b = reader(stream, "ses_b", second.signal);
    await tick();
    expect(fed.opened).toHaveLength(2);
    await fed.send({ type: "delta", session: "ses_b" });
    expect(b.got).toEqual(["delta"]);
    second.abort();
    await b.done;
  });

  it("a session leaving does not disturb the others", async () => {
    const fed = handFedSource();
    const stream = new SharedStream(fed.source);
    const stopA = new AbortController();
    const stopB = new AbortController();
    const a = reader(stream, "ses_a", stopA.signal);
    const b = reader(stream, "ses_b", stopB.signal);
    await tick();
    stopA.abort();
    await a.done;
    await fed.send({ type: "delta", session: "ses_b" });
    expect(a.got).toEqual(["left"]);
    expect(b.got).toEqual(["delta"]);
    expect(fed.opened[0]?.signal.aborted).toBe(false);
    stopB.abort();
    await b.done;
  });

  it("ends every session's share when the stream fails for good, after what was queued", async () => {
    const fed = handFedSource();
    let idle = 0;
    const stream = new SharedStream(fed.source, () => idle++);
    const stop = new AbortController();
    const a = reader(stream, "ses_a", stop.signal);
    const b = reader(stream, "ses_b", stop.signal);
    await tick();
    await fed.send({ type: "delta", session: "ses_a" });
    const refusal = new OpencodeApiError({
      status: 404,
      errorName: "NotFound",
      message: "gone",
      body: undefined,
      url: "http://x/api/event",
    });
    await fed.send(refusal);
    await Promise.all([a.done, b.done]);
    expect(a.got).toEqual(["delta", `ended: ${String(refusal)}`]);
    expect(b.got).toEqual([`ended: ${String(refusal)}`]);
    expect(stream.size).toBe(0);
    expect(idle).toBe(1);
  });
});
