/**
 * The SSE reader against a real `node:http` server on 127.0.0.1 that each test scripts:
 * real sockets, real fetch, no mocks. Timeouts given to the reader are small; waits for
 * "eventually" conditions are generous and never asserted as performance.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { recordingLogger } from "../../test/support/recording-logger.js";
import { type TimerTracker, trackTimers } from "../../test/support/timer-tracker.js";
import { within } from "../../test/support/within.js";
import {
  AbortError,
  ConnectionError,
  OpencodeApiError,
  ProtocolError,
  UsageError,
} from "../errors.js";
import { readSse, retryAfterMs, type SseMessage, type SseReaderOptions } from "./sse-reader.js";

/** One request the test server received. */
interface Hit {
  index: number;
  url: string;
  req: IncomingMessage;
  res: ServerResponse;
  /** Resolves when the request's TCP socket is closed (not merely the response finished). */
  socketClosed: Promise<void>;
}

interface TestServer {
  base: string;
  hits: Hit[];
  close(): Promise<void>;
}

const servers: TestServer[] = [];
const cleanups: (() => void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function startServer(handle: (hit: Hit) => void): Promise<TestServer> {
  const hits: Hit[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const socket = req.socket;
    const socketClosed = socket.destroyed
      ? Promise.resolve()
      : new Promise<void>((resolve) => socket.once("close", () => resolve()));
    const hit: Hit = { index: hits.length, url: req.url ?? "", req, res, socketClosed };
    hits.push(hit);
    handle(hit);
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  const testServer: TestServer = {
    base: `http://127.0.0.1:${address.port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  servers.push(testServer);
  return testServer;
}

function sseHead(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.flushHeaders();
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Timers of the reader and of the `sleep` it uses that are still pending. */
function trackReaderTimers(): TimerTracker {
  const tracker = trackTimers(/src[\\/](transport[\\/]sse-reader|util[\\/]abort)\.ts/);
  cleanups.push(() => tracker.dispose());
  return tracker;
}

/** Reader options for tests: small bounds, fast backoff, a logger that records. */
function options(url: () => string, extra: Partial<SseReaderOptions> = {}) {
  return {
    url,
    // Generous unless a test is about idleness, so a loaded machine does not add reconnects.
    idleTimeoutMs: 60_000,
    backoff: { initialMs: 10, maxMs: 50 },
    ...extra,
    logger: recordingLogger(),
  };
}

async function take(iterable: AsyncIterable<SseMessage>, count: number): Promise<SseMessage[]> {
  const seen: SseMessage[] = [];
  if (count === 0) return seen;
  for await (const message of iterable) {
    seen.push(message);
    if (seen.length >= count) break;
  }
  return seen;
}

describe("readSse framing", () => {
  it("parses multi-line data, event and id fields, CRLF and split chunks; skips comments", async () => {
    const server = await startServer(({ res }) => {
      sseHead(res);
      const bytes = Buffer.from("data: über\n\n", "utf8");
      const pieces: (string | Buffer)[] = [
        ": a comment\n\n",
        'event: message.updated\nid: 7\ndata: {"a":\n',
        "data: 1}\n\n",
        "data: hel",
        "lo\r\n\r\n",
        bytes.subarray(0, 7), // ends inside the two bytes of "ü"
        bytes.subarray(7),
      ];
      let next = 0;
      const timer = setInterval(() => {
        const piece = pieces[next++];
        if (piece === undefined) clearInterval(timer);
        else res.write(piece);
      }, 5);
      cleanups.push(() => clearInterval(timer));
    });

    const messages = await within(
      take(readSse(options(() => `${server.base}/event`)), 3),
      "three messages",
    );
    expect(messages).toEqual([
      { event: "message.updated", id: "7", data: '{"a":\n1}' },
      { event: undefined, id: undefined, data: "hello" },
      { event: undefined, id: undefined, data: "über" },
    ]);
    expect(server.hits).toHaveLength(1);
    expect(server.hits[0]?.req.headers.accept).toBe("text/event-stream");
  });

  it("sends the caller's headers, asked again on every connect", async () => {
    let calls = 0;
    const server = await startServer(({ res }) => {
      sseHead(res);
      res.end("data: x\n\n");
    });
    const reader = readSse(
      options(() => `${server.base}/event`, {
        headers: () => ({ authorization: `Bearer t${++calls}` }),
      }),
    );
    await within(take(reader, 2), "two messages over two connections");
    expect(server.hits.map((hit) => hit.req.headers.authorization)).toEqual([
      "Bearer t1",
      "Bearer t2",
    ]);
  });
});

describe("readSse reconnects", () => {
  it("reconnects after an idle stall, with the cursor the consumer advanced", async () => {
    const server = await startServer(({ res, index }) => {
      sseHead(res);
      // Each connection sends one event and then goes silent with the socket open.
      res.write(`id: ${index + 1}\ndata: event ${index + 1}\n\n`);
    });
    let lastSeen = 0;
    const opts = options(() => `${server.base}/api/session/s1/event?after=${lastSeen}`, {
      idleTimeoutMs: 500,
    });
    const seen: string[] = [];
    await within(
      (async () => {
        for await (const message of readSse(opts)) {
          seen.push(message.data);
          lastSeen = Number(message.id);
          if (seen.length === 2) break;
        }
      })(),
      "two events across a stall",
    );
    expect(seen).toEqual(["event 1", "event 2"]);
    expect(server.hits.map((hit) => hit.url)).toEqual([
      "/api/session/s1/event?after=0",
      "/api/session/s1/event?after=1",
    ]);
    // The stalled connection's socket was closed by the reader, not left open.
    await within(server.hits[0]?.socketClosed ?? Promise.reject(), "stalled socket to close");
    const warn = opts.logger.entries.find((entry) => entry.level === "warn");
    expect(warn?.fields).toMatchObject({ attempt: 1 });
    expect(String(warn?.fields?.reason)).toMatch(/idle/);
    expect(warn?.fields?.delayMs).toEqual(expect.any(Number));
  });

  it("reconnects when the server ends the stream normally", async () => {
    const server = await startServer(({ res, index }) => {
      sseHead(res);
      res.end(`data: connection ${index + 1}\n\n`);
    });
    const opts = options(() => `${server.base}/event`);
    const messages = await within(take(readSse(opts), 3), "three messages");
    expect(messages.map((message) => message.data)).toEqual([
      "connection 1",
      "connection 2",
      "connection 3",
    ]);
    expect(server.hits).toHaveLength(3);
    const warnings = opts.logger.entries.filter((entry) => entry.level === "warn");
    // Each connection delivered a message, so the backoff starts over every time.
    expect(warnings.map((entry) => entry.fields)).toEqual([
      expect.objectContaining({ reason: "the server ended the stream", attempt: 1 }),
      expect.objectContaining({ reason: "the server ended the stream", attempt: 1 }),
    ]);
  });

  it("delivers the last frame of a stream that ends in CR line endings", async () => {
    // Found by the reliability fuzzer: the parser holds a trailing CR back (a LF could follow),
    // so the blank line ending the last frame was never seen and the frame was lost.
    const server = await startServer(({ res, index }) => {
      sseHead(res);
      res.end(index === 0 ? "data: one\r\rdata: two\r\r" : "data: cut\r");
    });
    const messages = await within(
      take(readSse(options(() => `${server.base}/event`)), 2),
      "two messages",
    );
    expect(messages.map((message) => message.data)).toEqual(["one", "two"]);
  });

  it("still discards an unterminated last frame when the stream ends", async () => {
    const server = await startServer(({ res, index }) => {
      sseHead(res);
      res.end(index === 0 ? "data: whole\n\ndata: cut\n" : "data: next\n\n");
    });
    const messages = await within(
      take(readSse(options(() => `${server.base}/event`)), 2),
      "two messages",
    );
    expect(messages.map((message) => message.data)).toEqual(["whole", "next"]);
  });

  it("treats heartbeat comments as liveness: no reconnect while they flow", async () => {
    const server = await startServer(({ res }) => {
      sseHead(res);
      const started = Date.now();
      const timer = setInterval(() => {
        // Three times the idle bound of comments only, then one event.
        if (Date.now() - started < 1500) res.write(": heartbeat\n\n");
        else {
          res.write("data: after heartbeats\n\n");
          clearInterval(timer);
        }
      }, 50);
      cleanups.push(() => clearInterval(timer));
    });
    const opts = options(() => `${server.base}/api/event`, { idleTimeoutMs: 500 });
    const messages = await within(take(readSse(opts), 1), "the event after heartbeats");
    expect(messages.map((message) => message.data)).toEqual(["after heartbeats"]);
    expect(server.hits).toHaveLength(1);
    expect(opts.logger.entries.filter((entry) => entry.level === "warn")).toEqual([]);
  });

  it("does not count the time a slow consumer holds a message as idleness", async () => {
    const server = await startServer(({ res }) => {
      sseHead(res);
      res.write("data: first\n\n");
      const started = Date.now();
      const timer = setInterval(() => {
        if (Date.now() - started < 2000) res.write(": heartbeat\n\n");
        else {
          res.write("data: second\n\n");
          clearInterval(timer);
        }
      }, 50);
      cleanups.push(() => clearInterval(timer));
    });
    const opts = options(() => `${server.base}/api/event`, { idleTimeoutMs: 500 });
    const seen: string[] = [];
    await within(
      (async () => {
        for await (const message of readSse(opts)) {
          seen.push(message.data);
          if (seen.length === 2) break;
          await pause(1200); // hold the message for more than twice the idle bound
        }
      })(),
      "both events",
    );
    expect(seen).toEqual(["first", "second"]);
    expect(server.hits).toHaveLength(1);
  });

  it("bounds the wait for withheld headers, then reconnects", async () => {
    const server = await startServer(({ res, index }) => {
      if (index === 0) return; // never answer: headers withheld
      sseHead(res);
      res.write("data: finally\n\n");
    });
    const opts = options(() => `${server.base}/api/session/s1/event?after=0`, {
      connectTimeoutMs: 300,
    });
    const messages = await within(take(readSse(opts), 1), "the event on the second connect");
    expect(messages.map((message) => message.data)).toEqual(["finally"]);
    expect(server.hits).toHaveLength(2);
    await within(server.hits[0]?.socketClosed ?? Promise.reject(), "first socket to close");
    const warn = opts.logger.entries.find((entry) => entry.level === "warn");
    expect(String(warn?.fields?.reason)).toMatch(/response headers/);
  });

  it("reconnects after a network error mid-stream", async () => {
    const server = await startServer(({ req, res, index }) => {
      sseHead(res);
      res.write(`data: connection ${index + 1}\n\n`);
      if (index === 0) setTimeout(() => req.socket.destroy(), 20);
    });
    const opts = options(() => `${server.base}/event`);
    const messages = await within(take(readSse(opts), 2), "two messages");
    expect(messages.map((message) => message.data)).toEqual(["connection 1", "connection 2"]);
    expect(server.hits).toHaveLength(2);
  });
});

describe("readSse HTTP statuses", () => {
  it("does not retry 401: throws OpencodeApiError with the server's name and message", async () => {
    const server = await startServer(({ res }) => {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ name: "UnauthorizedError", data: { message: "bad credentials" } }));
    });
    const opts = options(() => `${server.base}/event`);
    const error = await within(
      take(readSse(opts), 1).then(
        () => undefined,
        (caught: unknown) => caught,
      ),
      "the 401 to surface",
    );
    expect(error).toBeInstanceOf(OpencodeApiError);
    expect(error).toMatchObject({
      status: 401,
      errorName: "UnauthorizedError",
      retryable: false,
      body: { name: "UnauthorizedError", data: { message: "bad credentials" } },
    });
    expect(String((error as Error).message)).toContain("bad credentials");
    await pause(200); // well past the 10 ms backoff: a retry would have happened by now
    expect(server.hits).toHaveLength(1);
  });

  it("does not retry 404 with a plain-text body", async () => {
    const server = await startServer(({ res }) => {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("no such session");
    });
    await expect(take(readSse(options(() => `${server.base}/x`)), 1)).rejects.toMatchObject({
      status: 404,
      errorName: "HTTP 404",
      body: "no such session",
    });
    expect(server.hits).toHaveLength(1);
  });

  it("retries 503 and then succeeds", async () => {
    const server = await startServer(({ res, index }) => {
      if (index === 0) {
        res.writeHead(503, { "content-type": "application/json" });
        res.end(JSON.stringify({ name: "Unavailable", data: { message: "starting" } }));
        return;
      }
      sseHead(res);
      res.write("data: up\n\n");
    });
    const opts = options(() => `${server.base}/event`);
    const messages = await within(take(readSse(opts), 1), "the event after a 503");
    expect(messages.map((message) => message.data)).toEqual(["up"]);
    expect(server.hits).toHaveLength(2);
    const warn = opts.logger.entries.find((entry) => entry.level === "warn");
    expect(warn?.fields).toMatchObject({ attempt: 1, consecutiveFailures: 1 });
    expect(String(warn?.fields?.reason)).toContain("503");
  });

  it("gives up after maxConsecutiveFailures with ConnectionError carrying the last failure", async () => {
    const server = await startServer(({ res }) => {
      res.writeHead(500);
      res.end("boom");
    });
    const opts = options(() => `${server.base}/event`, { maxConsecutiveFailures: 3 });
    const error = await within(
      take(readSse(opts), 1).then(
        () => undefined,
        (caught: unknown) => caught,
      ),
      "the reader to give up",
    );
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).cause).toBeInstanceOf(OpencodeApiError);
    expect((error as ConnectionError).cause).toMatchObject({ status: 500 });
    expect(server.hits).toHaveLength(3);
    // No message in between: the backoff keeps growing (10, 20 ms with jitter).
    const warnings = opts.logger.entries.filter((entry) => entry.level === "warn");
    expect(warnings.map((entry) => entry.fields?.attempt)).toEqual([1, 2]);
    expect(warnings.map((entry) => entry.fields?.consecutiveFailures)).toEqual([1, 2]);
  });

  it("reports each failed attempt and the connection that ends them; Infinity never gives up", async () => {
    // Twelve 503s in a row (beyond the default budget of 10), then a working stream.
    const server = await startServer(({ index, res }) => {
      if (index < 12) {
        res.writeHead(503);
        res.end("starting");
        return;
      }
      sseHead(res);
      res.write("data: back\n\n");
    });
    const changes: unknown[] = [];
    const opts = options(() => `${server.base}/event`, {
      maxConsecutiveFailures: Number.POSITIVE_INFINITY,
      onConnection: (change) => changes.push(change),
    });
    const [message] = await within(take(readSse(opts), 1), "the stream to come back");
    expect(message?.data).toBe("back");
    expect(changes).toHaveLength(13);
    expect(changes.slice(0, 12).map((change) => (change as { attempt: number }).attempt)).toEqual(
      Array.from({ length: 12 }, (_, index) => index + 1),
    );
    expect(changes[0]).toMatchObject({
      state: "reconnecting",
      reason: expect.stringContaining("503"),
    });
    expect(changes[12]).toEqual({ state: "connected" });
  });

  it("counts refused connections as failures", async () => {
    const server = await startServer(() => {});
    const deadUrl = server.base;
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    const error = await within(
      take(readSse(options(() => `${deadUrl}/event`, { maxConsecutiveFailures: 2 })), 1).then(
        () => undefined,
        (caught: unknown) => caught,
      ),
      "the reader to give up",
    );
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
  });

  it("rejects a 2xx that is not an event stream with ProtocolError, without retrying", async () => {
    const server = await startServer(({ res }) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html>login</html>");
    });
    const error = await within(
      take(readSse(options(() => `${server.base}/event`)), 1).then(
        () => undefined,
        (caught: unknown) => caught,
      ),
      "the protocol error",
    );
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toContain("text/html");
    expect(server.hits).toHaveLength(1);
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs("3")).toBe(3000);
    expect(retryAfterMs("soon")).toBeUndefined();
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(retryAfterMs("Wed, 01 Jan 2025 00:00:05 GMT", now)).toBe(5000);
  });
});

describe("readSse cleanup", () => {
  it("abort mid-stream closes the socket at once, rejects with AbortError and leaves no timer", async () => {
    const server = await startServer(({ res }) => {
      sseHead(res);
      res.write("data: one\n\n");
      res.write("data: two\n\n");
    });
    const timers = trackReaderTimers();
    const controller = new AbortController();
    // A long idle bound, so a leaked idle timer would still be counted at the end.
    const reader = readSse(
      options(() => `${server.base}/event`, { signal: controller.signal, idleTimeoutMs: 60_000 }),
    );
    const first = await within(reader.next(), "the first message");
    expect(first.value).toMatchObject({ data: "one" });
    // The consumer holds a message; aborting now must close the socket without another pull.
    controller.abort(new Error("user stop"));
    await within(server.hits[0]?.socketClosed ?? Promise.reject(), "the socket to close on abort");
    const error = await within(
      reader.next().then(
        () => undefined,
        (caught: unknown) => caught,
      ),
      "the rejection",
    );
    expect(error).toBeInstanceOf(AbortError);
    await timers.settled();
    expect(await reader.next()).toEqual({ done: true, value: undefined });
  });

  it("abort while waiting on the network clears the idle timer (the count sees it armed)", async () => {
    const server = await startServer(({ res }) => {
      sseHead(res);
      res.write("data: one\n\n");
    });
    const timers = trackReaderTimers();
    const controller = new AbortController();
    const reader = readSse(
      options(() => `${server.base}/event`, { signal: controller.signal, idleTimeoutMs: 60_000 }),
    );
    await within(reader.next(), "the first message");
    const pending = reader.next().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    await pause(50);
    // Sanity check that the count can see the reader's timer, so the final check can fail.
    expect(timers.live()).toBe(1);
    controller.abort();
    expect(await within(pending, "the rejection")).toBeInstanceOf(AbortError);
    await within(server.hits[0]?.socketClosed ?? Promise.reject(), "the socket to close");
    await timers.settled();
  });

  it("consumer break closes the socket", async () => {
    const server = await startServer(({ res }) => {
      sseHead(res);
      res.write("data: one\n\n");
    });
    const timers = trackReaderTimers();
    for await (const message of readSse(
      options(() => `${server.base}/event`, { idleTimeoutMs: 60_000 }),
    )) {
      expect(message.data).toBe("one");
      break;
    }
    await within(server.hits[0]?.socketClosed ?? Promise.reject(), "the socket to close on break");
    await timers.settled();
  });

  it("a throw in the consumer's loop closes the socket and the error propagates", async () => {
    const server = await startServer(({ res }) => {
      sseHead(res);
      res.write("data: one\n\n");
    });
    const consume = async (): Promise<void> => {
      for await (const _message of readSse(options(() => `${server.base}/event`))) {
        throw new Error("consumer failed");
      }
    };
    await expect(consume()).rejects.toThrow("consumer failed");
    await within(server.hits[0]?.socketClosed ?? Promise.reject(), "the socket to close on throw");
  });

  it("abort while headers are withheld closes the socket and leaves no timer", async () => {
    const server = await startServer(() => {}); // never answers
    const timers = trackReaderTimers();
    const controller = new AbortController();
    const reader = readSse(
      options(() => `${server.base}/api/session/s1/event?after=0`, {
        signal: controller.signal,
        connectTimeoutMs: 60_000,
      }),
    );
    const pending = reader.next().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    await vi.waitFor(() => expect(server.hits).toHaveLength(1), { timeout: 5000 });
    expect(timers.live()).toBe(1); // the connect bound is armed
    controller.abort();
    expect(await within(pending, "the rejection")).toBeInstanceOf(AbortError);
    await within(server.hits[0]?.socketClosed ?? Promise.reject(), "the socket to close");
    await timers.settled();
  });

  it("abort during the backoff sleep ends at once and leaves no timer", async () => {
    const server = await startServer(({ res }) => {
      res.writeHead(503);
      res.end();
    });
    const timers = trackReaderTimers();
    const controller = new AbortController();
    const opts = options(() => `${server.base}/event`, {
      signal: controller.signal,
      backoff: { initialMs: 60_000, maxMs: 60_000 },
    });
    const pending = readSse(opts)
      .next()
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    await within(opts.logger.warned, "the reconnect to be scheduled");
    await pause(20);
    expect(timers.live()).toBe(1); // the backoff sleep
    controller.abort();
    expect(await within(pending, "the rejection")).toBeInstanceOf(AbortError);
    await timers.settled();
    expect(server.hits).toHaveLength(1);
  });

  it("an already aborted signal rejects before connecting", async () => {
    const server = await startServer(() => {});
    const reader = readSse(options(() => `${server.base}/event`, { signal: AbortSignal.abort() }));
    await expect(reader.next()).rejects.toBeInstanceOf(AbortError);
    expect(server.hits).toHaveLength(0);
  });

  it("rejects invalid options at once with UsageError", () => {
    expect(() => readSse({ url: () => "http://127.0.0.1:1", idleTimeoutMs: 0 })).toThrow(
      UsageError,
    );
    expect(() => readSse({ url: () => "http://127.0.0.1:1", maxConsecutiveFailures: 0 })).toThrow(
      UsageError,
    );
    expect(() => readSse({ url: () => "http://127.0.0.1:1", backoff: { factor: 0 } })).toThrow(
      UsageError,
    );
  });
});
