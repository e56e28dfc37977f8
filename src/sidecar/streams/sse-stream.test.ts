/**
 * The SSE stream over a real HTTP connection (a bare node:http server, the feed over a real
 * event log): ids on durable events only, the caught-up marker, pings, resume from a seq, the
 * end when the session closes, and leaving the feed when the client goes away.
 */
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { LogSource, tick } from "../../../test/support/feed-source.js";
import { type SseFrame, sseFrames } from "../../../test/support/sse-frames.js";
import { resolveLimits, type SidecarLimits } from "../limits.js";
import { SessionFeeds } from "./session-feeds.js";
import { SseStream } from "./sse-stream.js";
import { streamLimitsOf } from "./stream-limits.js";
import { noStreamMetrics } from "./stream-metrics.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** Serves `source` as SSE from the `after` in the URL; its base URL. */
async function serve(
  source: LogSource,
  feeds: SessionFeeds,
  heartbeatMs = 60_000,
  limits: Partial<SidecarLimits> = {},
) {
  server = createServer((request, response) => {
    const after = Number(new URL(request.url ?? "/", "http://x").searchParams.get("after") ?? 0);
    new SseStream(response, source, after, {
      feeds,
      limits: streamLimitsOf(resolveLimits({ ...limits, streamHeartbeatMs: heartbeatMs })),
      metrics: noStreamMetrics,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address !== "object") throw new Error("no port");
  return `http://127.0.0.1:${address.port}`;
}

/** Reads frames until `stop` holds for one (or the stream ends); the frames read. */
async function readUntil(frames: AsyncIterator<SseFrame>, stop: (frame: SseFrame) => boolean) {
  const read: SseFrame[] = [];
  for (;;) {
    const next = await frames.next();
    if (next.done === true) return read;
    read.push(next.value);
    if (stop(next.value)) return read;
  }
}

const isEvent = (frame: SseFrame, name: string) => frame.kind === "event" && frame.event === name;

describe("SseStream", () => {
  it("streams kept events with their seq as id, the caught-up marker, then live ones; ends when the session closes", async () => {
    const source = new LogSource();
    for (let n = 0; n < 3; n++) source.append(true);
    const url = await serve(source, new SessionFeeds());
    const response = await fetch(`${url}/?after=1`);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const frames = sseFrames(response)[Symbol.asyncIterator]();
    const kept = await readUntil(frames, (frame) => isEvent(frame, "caught-up"));
    expect(kept.map((frame) => (frame.kind === "event" ? [frame.event, frame.id] : []))).toEqual([
      [undefined, "2"],
      [undefined, "3"],
      ["caught-up", undefined],
    ]);
    expect(kept.at(-1)).toMatchObject({ data: JSON.stringify({ sessionId: source.id, seq: 3 }) });
    const delta = source.append(false);
    const durable = source.append(true);
    source.log.close();
    const rest = await readUntil(frames, () => false);
    expect(rest).toEqual([
      { kind: "event", event: undefined, id: undefined, data: JSON.stringify(delta) },
      { kind: "event", event: undefined, id: "4", data: JSON.stringify(durable) },
      {
        kind: "event",
        event: "end",
        id: undefined,
        data: expect.stringContaining('"code":"session_closed"'),
      },
    ]);
  });

  it("pings while nothing happens", async () => {
    const source = new LogSource();
    const url = await serve(source, new SessionFeeds(), 10);
    const frames = sseFrames(await fetch(url))[Symbol.asyncIterator]();
    const read = await readUntil(frames, (frame) => frame.kind === "comment");
    expect(read).toEqual([
      { kind: "event", event: "caught-up", id: undefined, data: expect.any(String) },
      { kind: "comment", comment: "ping" },
    ]);
  });

  it("drops ephemeral events for a reader that stops reading, then ends its stream naming the seq to resume from", async () => {
    const source = new LogSource();
    const feeds = new SessionFeeds();
    const url = await serve(source, feeds, 60_000, {
      streamDropEphemeralBytes: 16 * 1024,
      streamDisconnectBytes: 512 * 1024,
    });
    const response = await fetch(url);
    // Not read until the server has given up: what it writes piles up.
    for (let n = 0; n < 2000 && feeds.readers > 0; n++) {
      source.append(n % 3 === 0, 16 * 1024);
      await tick();
    }
    expect(feeds.readers).toBe(0);
    const frames: SseFrame[] = [];
    for await (const frame of sseFrames(response)) frames.push(frame);
    const ids = frames.flatMap((frame) =>
      frame.kind === "event" && frame.id !== undefined ? [Number(frame.id)] : [],
    );
    expect(ids).toEqual(ids.map((_, index) => index + 1)); // no durable event skipped
    expect(frames.some((frame) => isEvent(frame, "dropped"))).toBe(true);
    const last = frames.at(-1);
    expect(last).toMatchObject({ kind: "event", event: "slow-consumer" });
    expect(last?.kind === "event" && JSON.parse(last.data)).toMatchObject({
      code: "slow_consumer",
      message: `slow consumer: resume from seq ${ids.at(-1)}`,
    });
  });

  it("leaves the session's feed when the client goes away", async () => {
    const source = new LogSource();
    const feeds = new SessionFeeds();
    const url = await serve(source, feeds);
    const stop = new AbortController();
    const response = await fetch(url, { signal: stop.signal });
    const frames = sseFrames(response)[Symbol.asyncIterator]();
    await readUntil(frames, (frame) => isEvent(frame, "caught-up"));
    expect(feeds.readers).toBe(1);
    stop.abort();
    for (let n = 0; n < 50 && feeds.readers > 0; n++) await tick();
    expect(feeds.readers).toBe(0);
  });
});
