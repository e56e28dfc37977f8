/**
 * One WebSocket connection over a real socket (`ws`'s server, no Fastify), its sessions over
 * real event logs: subscriptions and their events, every kind of bad message answered (and the
 * socket closed for too many, or one too large), heartbeats, a slow consumer, shutdown.
 */
import { afterEach, describe, expect, it } from "vitest";
import { LogSource, tick } from "../../../test/support/feed-source.js";
import {
  messageWith,
  RawWsClient,
  WebSocketServer,
  type WsServer,
} from "../../../test/support/raw-ws.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import { silentLogger } from "../../util/logger.js";
import { resolveLimits, type SidecarLimits } from "../limits.js";
import { FeedRequestError } from "./feed-types.js";
import { SessionFeeds } from "./session-feeds.js";
import { streamLimitsOf } from "./stream-limits.js";
import { noStreamMetrics, type StreamMetrics } from "./stream-metrics.js";
import { type StreamSocket, WsConnection } from "./ws-connection.js";

let server: WsServer | undefined;
const connections: WsConnection[] = [];
afterEach(async () => {
  for (const client of server?.clients ?? []) client.terminate();
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(resolve)));
  server = undefined;
  connections.length = 0;
});

interface Setup {
  url: string;
  sources: Map<string, LogSource>;
  feeds: SessionFeeds;
}

/** A server whose sockets are `WsConnection`s over `sources` (by id). */
async function serve(
  sources: LogSource[],
  limits: Partial<SidecarLimits> = {},
  metrics: StreamMetrics = noStreamMetrics,
): Promise<Setup> {
  const byId = new Map(sources.map((source) => [source.id, source]));
  const feeds = new SessionFeeds();
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  server = wss;
  wss.on("connection", (socket) => {
    connections.push(
      new WsConnection(socket as unknown as StreamSocket, {
        feeds,
        openSource: async (id) => {
          const source = byId.get(id);
          if (source === undefined) throw new FeedRequestError("not_found", `no session ${id}`);
          return source;
        },
        limits: streamLimitsOf(resolveLimits(limits)),
        metrics,
        logger: silentLogger,
      }),
    );
  });
  await new Promise<void>((resolve) => wss.on("listening", resolve));
  const address = wss.address();
  if (typeof address === "string") throw new Error("no port");
  return { url: `ws://127.0.0.1:${address.port}`, sources: byId, feeds };
}

type Message = Record<string, unknown>;
const eventsOf = (client: RawWsClient, sessionId: string): CanonicalEvent[] =>
  (client.received as Message[]).flatMap((message) =>
    message.type === "event" && message.sessionId === sessionId
      ? [message.event as CanonicalEvent]
      : [],
  );
const errorCodes = (client: RawWsClient) =>
  (client.received as Message[]).flatMap((message) =>
    message.type === "error" ? [(message.error as { code: string }).code] : [],
  );

describe("WsConnection", () => {
  it("carries several sessions' subscriptions: kept events, caught-up, live ones; unsubscribe stops one", async () => {
    const one = new LogSource(256, "ses_one");
    const two = new LogSource(256, "ses_two");
    one.append(true);
    one.append(true);
    const { url } = await serve([one, two]);
    const client = await RawWsClient.connect(url);
    client.send({ type: "subscribe", sessionId: "ses_one", after: 1 });
    client.send({ type: "subscribe", sessionId: "ses_two" });
    await client.waitFor("one caught up", messageWith({ type: "caught-up", sessionId: "ses_one" }));
    await client.waitFor("two caught up", messageWith({ type: "caught-up", sessionId: "ses_two" }));
    expect(client.received).toContainEqual({ type: "caught-up", sessionId: "ses_one", seq: 2 });
    expect(client.received).toContainEqual({ type: "caught-up", sessionId: "ses_two", seq: 0 });
    const live = two.append(false);
    await client.waitFor("the live delta", messageWith({ type: "event", sessionId: "ses_two" }));
    client.send({ type: "unsubscribe", sessionId: "ses_two" });
    client.send({ type: "ping", id: 1 });
    await client.waitFor("pong", messageWith({ type: "pong", id: 1 }));
    two.append(true);
    one.append(true);
    await client.waitFor("seq 3 of one", (message) => {
      const event = (message as Message).event as CanonicalEvent | undefined;
      return event?.seq === 3;
    });
    expect(eventsOf(client, "ses_one").map((event) => event.seq)).toEqual([2, 3]);
    expect(eventsOf(client, "ses_two")).toEqual([live]);
    expect(errorCodes(client)).toEqual([]);
  });

  it("answers every bad message with an error and carries on", async () => {
    const source = new LogSource(256, "ses_one");
    const { url } = await serve([source]);
    const client = await RawWsClient.connect(url);
    client.send("{not json");
    client.send({ type: "subscribe" });
    client.send({ type: "dance", sessionId: "ses_one" });
    client.send({ type: "subscribe", sessionId: "ses_one", after: -1 });
    client.send({ type: "subscribe", sessionId: "ses_one", after: 1.5 });
    client.send({ type: "subscribe", sessionId: "ses_one", extra: true });
    client.send([1, 2]);
    client.send("null");
    client.socket.send(Buffer.from("binary"), { binary: true });
    client.send({ type: "subscribe", sessionId: "ses_nope" });
    client.send({ type: "unsubscribe", sessionId: "ses_one" });
    client.send({ type: "subscribe", sessionId: "ses_one", after: 5 });
    client.send({ type: "ping", id: "after the bad ones" });
    await client.waitFor("pong", messageWith({ type: "pong", id: "after the bad ones" }));
    // Two answers wait for the session to be looked up: they may come after the pong (they did
    // on a loaded machine, when the messages came in one read). The others come at once, in order.
    const lookedUp = ["not_found", "after_out_of_range"];
    for (const code of lookedUp) {
      await client.waitFor(code, (message) => JSON.stringify(message).includes(`"${code}"`));
    }
    const codes = errorCodes(client);
    expect(codes.filter((code) => !lookedUp.includes(code))).toEqual([
      "bad_json",
      "invalid_message",
      "invalid_message",
      "invalid_message",
      "invalid_message",
      "invalid_message",
      "invalid_message",
      "invalid_message",
      "bad_message",
      "not_subscribed",
    ]);
    expect(codes.filter((code) => lookedUp.includes(code)).sort()).toEqual([...lookedUp].sort());
    expect(client.received).toContainEqual({
      type: "error",
      sessionId: "ses_nope",
      error: { code: "not_found", message: "no session ses_nope" },
    });
    // The socket still works: a good subscription goes through, and a second one is refused.
    client.send({ type: "subscribe", sessionId: "ses_one" });
    client.send({ type: "subscribe", sessionId: "ses_one" });
    await client.waitFor("caught up", messageWith({ type: "caught-up" }));
    await client.waitFor("the refusal", (message) =>
      JSON.stringify(message).includes("already_subscribed"),
    );
  });

  it("closes a socket that keeps sending bad messages (1008), and one that sends a huge one (1009)", async () => {
    const { url } = await serve([], { wsInvalidMessagesPerMinute: 5, wsMessageBytes: 1024 });
    const noisy = await RawWsClient.connect(url);
    for (let n = 0; n < 10; n++) noisy.send("garbage");
    expect(await noisy.closed).toEqual({
      code: 1008,
      reason: "too many invalid messages (more than 5 in 60 s)",
    });
    expect(errorCodes(noisy)).toHaveLength(6);
    const huge = await RawWsClient.connect(url);
    huge.send({ type: "ping", id: "x".repeat(2000) });
    expect(await huge.closed).toMatchObject({ code: 1009 });
  });

  it("pings, and terminates a client that stays silent past the timeout", async () => {
    const limits = { streamHeartbeatMs: 20, streamHeartbeatTimeoutMs: 100 };
    const { url } = await serve([], limits);
    const answering = await RawWsClient.connect(url); // ws answers pings by itself
    const pings: number[] = [];
    answering.socket.on("ping" as "pong", () => pings.push(1));
    const silent = await RawWsClient.connect(url, { autoPong: false });
    expect((await silent.closed).code).toBe(1006); // terminated: no close frame
    expect(pings.length).toBeGreaterThan(0);
    answering.send({ type: "ping" });
    await answering.waitFor("pong", messageWith({ type: "pong" }));
    expect(answering.socket.readyState).toBe(1);
  });

  it("keeps a client that answers when this process's event loop was held up past the timeout", async () => {
    const limits = { streamHeartbeatMs: 20, streamHeartbeatTimeoutMs: 100 };
    const { url } = await serve([], limits);
    const answering = await RawWsClient.connect(url);
    answering.send({ type: "ping" });
    await answering.waitFor("pong", messageWith({ type: "pong" }));
    // The sidecar's process is busy (a load spike, a long GC): its heartbeat timer fires late,
    // ahead of the pongs that wait unread. It once terminated a live client so.
    const until = Date.now() + 300;
    while (Date.now() < until) {
      // busy: nothing else runs
    }
    const pongs = answering.received.length;
    answering.send({ type: "ping" });
    await answering.waitFor("a pong after the stall", messageWith({ type: "pong" }), pongs);
    expect(answering.socket.readyState).toBe(1);
  });

  it("drops ephemeral events for a client that stops reading, never durable ones, then closes it 4008", async () => {
    const source = new LogSource(256, "ses_one");
    const limits = { streamDropEphemeralBytes: 64 * 1024, streamDisconnectBytes: 2 * 1024 * 1024 };
    const { url } = await serve([source], limits);
    const slow = await RawWsClient.connect(url);
    slow.send({ type: "subscribe", sessionId: "ses_one" });
    await slow.waitFor("caught up", messageWith({ type: "caught-up" }));
    slow.socket.pause();
    const connection = connections[0];
    if (connection === undefined) throw new Error("no connection");
    // Until the server gives up on it: the kernel's buffers fill first, then ws's.
    for (let n = 0; n < 2000 && !isClosing(slow); n++) {
      source.append(n % 3 === 0, 16 * 1024);
      await tick();
    }
    slow.socket.resume();
    const closed = await slow.closed;
    expect(closed.code).toBe(4008);
    const durable = eventsOf(slow, "ses_one").filter((event) => event.durable);
    const seqs = durable.map((event) => event.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1)); // none lost, none twice
    expect(closed.reason).toBe(`slow consumer: resume from seq ${seqs.at(-1)}`);
    const dropped = (slow.received as Message[]).filter((message) => message.type === "dropped");
    expect(dropped.length).toBeGreaterThan(0);
    expect(errorCodes(slow)).toEqual(["slow_consumer"]);
  });

  it("tells each subscription when its session closes, and closes with 1012 when the sidecar stops", async () => {
    const one = new LogSource(256, "ses_one");
    const two = new LogSource(256, "ses_two");
    const { url, feeds } = await serve([one, two]);
    const client = await RawWsClient.connect(url);
    client.send({ type: "subscribe", sessionId: "ses_one" });
    client.send({ type: "subscribe", sessionId: "ses_two" });
    await client.waitFor("caught up", messageWith({ type: "caught-up", sessionId: "ses_two" }));
    one.log.close();
    await client.waitFor("session_closed", (message) =>
      JSON.stringify(message).includes("session_closed"),
    );
    expect(feeds.readers).toBe(1);
    connections[0]?.close(1012, "sidecar stopping: resume from your last seq");
    expect(await client.closed).toEqual({
      code: 1012,
      reason: "sidecar stopping: resume from your last seq",
    });
    for (let n = 0; n < 20 && feeds.readers > 0; n++) await tick();
    expect(feeds.readers).toBe(0);
  });
});

function isClosing(client: RawWsClient): boolean {
  return client.socket.readyState >= 2 || connections[0] === undefined;
}
