/**
 * The stream routes wired into the sidecar's real app (`buildApp`: security hook, errors,
 * metrics), listening on a port, with sessions stood in for by event logs (the sidecar's map of
 * open sessions is the one double here; the end-to-end test runs the real thing).
 */
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { LogSource } from "../../../test/support/feed-source.js";
import { messageWith, RawWsClient } from "../../../test/support/raw-ws.js";
import { sseFrames } from "../../../test/support/sse-frames.js";
import type { Bridge } from "../../runtime/bridge/bridge.js";
import { silentLogger } from "../../util/logger.js";
import { AllowedDirectories } from "../allowed-directories.js";
import { buildApp } from "../app.js";
import type { SidecarContext } from "../context.js";
import { ApiError } from "../errors.js";
import { Idempotency } from "../idempotency.js";
import { resolveLimits } from "../limits.js";
import { LiveSnapshots } from "../live-snapshots.js";
import { SidecarMetrics } from "../metrics.js";
import type { OpenSessions } from "../open-sessions.js";
import { SentImages } from "../sent-images.js";
import type { SidecarApp } from "../sidecar-app.js";
import { Tickets } from "../tickets.js";

const TOKEN = "stream-routes-test-token-0123456789";
const auth = { authorization: `Bearer ${TOKEN}` };

let app: SidecarApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** The app over `sources`, listening; its base URL and context. */
async function listen(sources: LogSource[]) {
  const byId = new Map(sources.map((source) => [source.id, source]));
  const open = async (id: string) => {
    const source = byId.get(id);
    if (source === undefined) throw new ApiError("not_found", `no session ${id}`);
    return source;
  };
  // What the streams read: a session, or a subagent's child of an open one (none here).
  const sessions = { open, source: open } as unknown as OpenSessions;
  const stop = new AbortController();
  const limits = resolveLimits({});
  const ctx: SidecarContext = {
    bridge: undefined as unknown as Bridge, // the stream routes never reach it
    token: TOKEN,
    allowOrigins: [],
    allowedDirectories: new AllowedDirectories(["/nowhere"], false),
    tickets: new Tickets({ ttlMs: 30_000, max: 10 }),
    metrics: new SidecarMetrics(),
    logger: silentLogger,
    limits,
    sessions,
    idempotency: new Idempotency({ ttlMs: 1000, max: 10 }),
    liveSnapshots: new LiveSnapshots(),
    sentImages: new SentImages(limits.sentImageBytes),
    store: undefined,
    address: { host: "127.0.0.1", port: 0 },
    stopping: stop.signal,
  };
  const built = buildApp(ctx);
  app = built;
  await built.listen({ host: "127.0.0.1", port: 0 });
  const address = built.server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  ctx.address.port = address.port;
  return { url: `http://127.0.0.1:${address.port}`, ctx, stop };
}

/** A WebSocket handshake written by hand; the client never closes the connection itself. */
function rawHandshake(url: string, path: string, headers: Record<string, string>) {
  const { port } = new URL(url);
  const socket = connect(Number(port), "127.0.0.1");
  let answer = "";
  socket.on("data", (chunk) => {
    answer += chunk.toString("utf8");
  });
  const closed = new Promise((resolve) => socket.on("close", resolve));
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\n` +
      "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n" +
      `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n${extra.join("")}\r\n`,
  );
  return { closed, answer: () => answer };
}

async function until(condition: () => boolean): Promise<void> {
  for (let n = 0; n < 500 && !condition(); n++) await new Promise((r) => setTimeout(r, 10));
}

describe("the stream routes in the sidecar's app", () => {
  it("serves the WebSocket behind the token, and counts its clients and events", async () => {
    const source = new LogSource(256, "ses_one");
    source.append(true);
    const { url, ctx } = await listen([source]);
    const ws = `${url.replace("http", "ws")}/v1/ws`;
    await expect(RawWsClient.connect(ws)).rejects.toThrow(/HTTP 401/);
    const client = await RawWsClient.connect(ws, { headers: auth });
    client.send({ type: "subscribe", sessionId: "ses_one" });
    client.send({ type: "subscribe", sessionId: "ses_gone" });
    await client.waitFor("caught up", messageWith({ type: "caught-up", seq: 1 }));
    await client.waitFor("not found", (message) => JSON.stringify(message).includes("not_found"));
    const metrics = await ctx.metrics.registry.metrics();
    expect(metrics).toContain('ocb_connected_clients{transport="ws"} 1');
    expect(metrics).toMatch(/ocb_events_sent_total\{transport="ws",kind="durable"\} 1/);
    client.close();
  });

  it("closes the connection of a refused handshake itself (a client may keep it open)", async () => {
    const { url } = await listen([]);
    const refused = rawHandshake(url, "/v1/ws", {});
    await refused.closed; // the server closed it: the client here never would
    expect(refused.answer()).toMatch(/^HTTP\/1.1 401/);
    // Another path: answered 404 by the app, outside the stream routes. The connection is left
    // until the handshake bound, or the stop, which it does not hold up.
    const elsewhere = rawHandshake(url, "/v1/nope", auth);
    await until(() => elsewhere.answer().startsWith("HTTP/1.1 404"));
    await app?.close();
    app = undefined;
    await elsewhere.closed;
  });

  it("serves SSE from Last-Event-ID (over ?after=), and refuses a bad one or an unknown session", async () => {
    const source = new LogSource(256, "ses_one");
    for (let n = 0; n < 4; n++) source.append(true);
    const { url } = await listen([source]);
    const stop = new AbortController();
    const response = await fetch(`${url}/v1/sessions/ses_one/events?after=1`, {
      headers: { ...auth, "last-event-id": "3" },
      signal: stop.signal,
    });
    expect(response.status).toBe(200);
    const ids: (string | undefined)[] = [];
    for await (const frame of sseFrames(response)) {
      if (frame.kind !== "event") continue;
      if (frame.event === "caught-up") break;
      ids.push(frame.id);
    }
    stop.abort();
    expect(ids).toEqual(["4"]);
    const bad = await fetch(`${url}/v1/sessions/ses_one/events?after=x`, { headers: auth });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: "invalid_request" } });
    const ahead = await fetch(`${url}/v1/sessions/ses_one/events?after=9`, { headers: auth });
    expect(ahead.status).toBe(409);
    expect(await ahead.json()).toMatchObject({ error: { message: /past the last seq/ } });
    const missing = await fetch(`${url}/v1/sessions/ses_nope/events`, { headers: auth });
    expect(missing.status).toBe(404);
  });

  it("closes sockets with 1012 and ends SSE streams when the sidecar stops", async () => {
    const source = new LogSource(256, "ses_one");
    const { url, stop } = await listen([source]);
    const client = await RawWsClient.connect(`${url.replace("http", "ws")}/v1/ws`, {
      headers: auth,
    });
    client.send({ type: "subscribe", sessionId: "ses_one" });
    await client.waitFor("caught up", messageWith({ type: "caught-up" }));
    const response = await fetch(`${url}/v1/sessions/ses_one/events`, { headers: auth });
    const frames = sseFrames(response)[Symbol.asyncIterator]();
    await frames.next(); // caught-up
    stop.abort();
    expect(await client.closed).toEqual({
      code: 1012,
      reason: "sidecar stopping: resume from your last seq",
    });
    const last = await frames.next();
    expect(last.value).toMatchObject({ kind: "event", event: "end" });
    expect((await frames.next()).done).toBe(true);
  });
});
