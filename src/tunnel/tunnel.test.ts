/**
 * The tunnel end to end in one process: `openTunnelClient` and `serveTunnel` over a
 * `linkedChannelPair`, the target a real `node:http` server with `ws` on it. Every wait is on
 * an event, bounded by `within`; the one fixed pause only shows that nothing more happens.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { afterEach, describe, expect, expectTypeOf, it } from "vitest";
import { within } from "../../test/support/within.js";
import type { FetchLike } from "../client/http-caller.js";
import type { WebSocketConstructor } from "../client/socket/websocket-like.js";
import { linkedChannelPair } from "./linked-channel-pair.js";
import type { MessageChannel } from "./message-channel.js";
import { openTunnelClient, type TunnelClient } from "./tunnel-client.js";
import { decodeFrame, encodeFrame, type Frame } from "./tunnel-frames.js";
import { INITIAL_WINDOW_BYTES, type TunnelLimits } from "./tunnel-limits.js";
import { type ServeTunnelOptions, serveTunnel, type TunnelServer } from "./tunnel-server.js";
import type { TunnelWebSocket } from "./tunnel-websocket.js";

interface TargetSocket {
  send(data: string | Buffer, options?: { binary?: boolean }): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  on(event: "message", listener: (data: Buffer, isBinary: boolean) => void): unknown;
  on(event: "close", listener: (code: number, reason: Buffer) => void): unknown;
}
interface TargetWsServer {
  handleUpgrade(
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    done: (socket: TargetSocket) => void,
  ): void;
  readonly clients: Set<TargetSocket>;
}
const { WebSocketServer } = createRequire(import.meta.url)("ws") as {
  WebSocketServer: new (options: { noServer: true }) => TargetWsServer;
};

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

interface Target {
  port: number;
  /** Each upgrade's socket (refused ones with a 401 before: path `/refuse`). */
  sockets: TargetSocket[];
  nextSocket(): Promise<TargetSocket>;
  /** The headers of each upgrade request. */
  upgradeHeaders: IncomingMessage["headers"][];
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startTarget(
  handler: Handler,
  listenOn: { socketPath: string } | undefined = undefined,
): Promise<Target> {
  const server: Server = createServer(handler);
  const wss = new WebSocketServer({ noServer: true });
  const sockets: TargetSocket[] = [];
  const unclaimed: TargetSocket[] = [];
  const waiting: ((socket: TargetSocket) => void)[] = [];
  const upgradeHeaders: IncomingMessage["headers"][] = [];
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgradeHeaders.push(request.headers);
    if (request.url?.startsWith("/refuse")) {
      socket.end("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      sockets.push(ws);
      const waiter = waiting.shift();
      if (waiter !== undefined) waiter(ws);
      else unclaimed.push(ws);
    });
  });
  await new Promise<void>((resolve) => {
    if (listenOn === undefined) server.listen(0, "127.0.0.1", resolve);
    else server.listen(listenOn.socketPath, resolve);
  });
  cleanups.push(async () => {
    for (const socket of wss.clients) socket.terminate();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    port: listenOn === undefined ? (server.address() as AddressInfo).port : 0,
    sockets,
    upgradeHeaders,
    nextSocket: () => {
      const ready = unclaimed.shift();
      return ready !== undefined
        ? Promise.resolve(ready)
        : new Promise((resolve) => waiting.push(resolve));
    },
  };
}

interface Tunnel {
  client: TunnelClient;
  server: TunnelServer;
  clientEnd: MessageChannel;
  serverEnd: MessageChannel;
}

function tunnelTo(
  target: Target,
  options: Partial<ServeTunnelOptions> = {},
  clientLimits: Partial<TunnelLimits> = {},
): Tunnel {
  const [clientEnd, serverEnd] = linkedChannelPair();
  const server = serveTunnel(serverEnd, {
    target: { host: "127.0.0.1", port: target.port },
    ...options,
  });
  const client = openTunnelClient(clientEnd, { limits: clientLimits });
  cleanups.push(async () => {
    client.close();
    await within(server.closed, "the tunnel server's close");
  });
  return { client, server, clientEnd, serverEnd };
}

const BASE = "http://sidecar.example";

function pattern(size: number, seed: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let index = 0; index < size; index++) bytes[index] = (index * 31 + seed) & 0xff;
  return bytes;
}
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Resolves when `request`'s connection closed before its response finished. */
function closedEarly(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => response.on("close", () => resolve()));
}

it("fits BridgeClient's fetch and WebSocket options", () => {
  expectTypeOf<TunnelClient["fetch"]>().toExtend<FetchLike>();
  expectTypeOf<TunnelClient["WebSocket"]>().toExtend<WebSocketConstructor>();
});

describe("fetch through the tunnel", () => {
  it("carries method, path, query, status, headers and bodies both ways", async () => {
    const target = await startTarget(async (request, response) => {
      const body = await bodyOf(request);
      response.writeHead(201, { "content-type": "application/json", "x-reply": "yes" });
      response.end(
        JSON.stringify({
          method: request.method,
          url: request.url,
          type: request.headers["content-type"],
          custom: request.headers["x-custom"],
          body: body.toString("utf8"),
        }),
      );
    });
    const { client } = tunnelTo(target);
    const got = await client.fetch(`${BASE}/v1/things?x=1&y=%20`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-custom": "c" },
      body: JSON.stringify({ hello: "wörld" }),
    });
    expect(got.status).toBe(201);
    expect(got.headers.get("x-reply")).toBe("yes");
    expect(await got.json()).toEqual({
      method: "POST",
      url: "/v1/things?x=1&y=%20",
      type: "application/json",
      custom: "c",
      body: '{"hello":"wörld"}',
    });
    const plain = await client.fetch("/healthz", {});
    expect(plain.status).toBe(201);
    expect(((await plain.json()) as { method: string }).method).toBe("GET");
  });

  it("carries a 1 MiB request body and a 5 MiB response body byte for byte", async () => {
    const upload = pattern(1024 * 1024, 7);
    const download = pattern(5 * 1024 * 1024, 3);
    const target = await startTarget(async (request, response) => {
      const body = await bodyOf(request);
      response.setHeader("x-upload-sha256", sha256(body));
      response.setHeader("x-upload-length", String(body.byteLength));
      response.end(download);
    });
    const { client } = tunnelTo(target);
    const sent = new Uint8Array(upload);
    const answer = client.fetch(`${BASE}/blob`, { method: "PUT", body: sent });
    sent.fill(0); // the body was taken when fetch was called, as fetch takes it
    const got = await answer;
    expect(got.headers.get("x-upload-length")).toBe(String(upload.byteLength));
    expect(got.headers.get("x-upload-sha256")).toBe(sha256(upload));
    const received = new Uint8Array(await got.arrayBuffer());
    expect(received.byteLength).toBe(download.byteLength);
    expect(sha256(received)).toBe(sha256(download));
  });

  it("hands over a streaming response line by line, before it ends", async () => {
    let writeMore: (line: string | undefined) => void = () => {};
    const target = await startTarget((_request, response) => {
      response.writeHead(200, { "content-type": "application/x-ndjson" });
      response.write('{"n":1}\n');
      writeMore = (line) => (line === undefined ? response.end() : response.write(line));
    });
    const { client } = tunnelTo(target);
    const got = await client.fetch(`${BASE}/v1/events`, {});
    const reader = (got.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const first = await within(reader.read(), "the first line");
    expect(decoder.decode(first.value)).toBe('{"n":1}\n');
    writeMore('{"n":2}\n');
    const second = await within(reader.read(), "the second line");
    expect(decoder.decode(second.value)).toBe('{"n":2}\n');
    writeMore(undefined);
    expect((await within(reader.read(), "the end")).done).toBe(true);
  });

  it("aborts mid-stream: the read rejects with AbortError and the target's request closes", async () => {
    let targetClosed: Promise<void> = Promise.resolve();
    const target = await startTarget((_request, response) => {
      targetClosed = closedEarly(response);
      response.writeHead(200);
      response.write("first");
    });
    const { client, server } = tunnelTo(target);
    const controller = new AbortController();
    const got = await client.fetch(`${BASE}/slow`, { signal: controller.signal });
    const reader = (got.body as ReadableStream<Uint8Array>).getReader();
    await within(reader.read(), "the first chunk");
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: "AbortError" });
    await within(targetClosed, "the target's request to close");
    expect(server.openStreams).toBe(0);
  });

  it("rejects a pending fetch with AbortError when its signal fires", async () => {
    let targetClosed: Promise<void> = Promise.resolve();
    let arrived: () => void = () => {};
    const requestArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const target = await startTarget((_request, response) => {
      targetClosed = closedEarly(response);
      arrived();
    });
    const { client } = tunnelTo(target);
    const controller = new AbortController();
    const pending = client.fetch(`${BASE}/never`, { signal: controller.signal });
    await within(requestArrived, "the request at the target");
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(DOMException);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    await within(targetClosed, "the target's request to close");
  });

  it("errors a body that arrived whole but is unread when the signal fires, as fetch does", async () => {
    const target = await startTarget((_request, response) => response.end("all of it"));
    const { client, server } = tunnelTo(target);
    const controller = new AbortController();
    const got = await client.fetch(`${BASE}/done`, { signal: controller.signal });
    const reader = (got.body as ReadableStream<Uint8Array>).getReader();
    // A later request's answer on the same ordered channel: the first answer's end came before.
    expect(await (await client.fetch(`${BASE}/other`, {})).text()).toBe("all of it");
    expect(server.openStreams).toBe(0);
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: "AbortError" });
  });

  it("cancelling the body resets the stream upstream", async () => {
    let targetClosed: Promise<void> = Promise.resolve();
    const target = await startTarget((_request, response) => {
      targetClosed = closedEarly(response);
      response.write("x");
    });
    const { client } = tunnelTo(target);
    const got = await client.fetch(`${BASE}/cancel`, {});
    await got.body?.cancel();
    await within(targetClosed, "the target's request to close");
  });

  it("runs 50 requests at once, interleaved", async () => {
    const waiting: { path: string; response: ServerResponse }[] = [];
    const target = await startTarget((request, response) => {
      waiting.push({ path: request.url ?? "", response });
      // Every answer starts once all 50 arrived, each in two parts, in reverse order.
      if (waiting.length < 50) return;
      for (const each of [...waiting].reverse()) each.response.write(`${each.path}:`);
      for (const each of waiting) {
        each.response.end(pattern(70_000, Number(each.path.split("/").at(-1))));
      }
    });
    const { client } = tunnelTo(target);
    const answers = await within(
      Promise.all(
        Array.from({ length: 50 }, async (_, index) => {
          const got = await client.fetch(`${BASE}/n/${index}`, {});
          return new Uint8Array(await got.arrayBuffer());
        }),
      ),
      "50 answers",
    );
    answers.forEach((answer, index) => {
      const prefix = new TextEncoder().encode(`/n/${index}:`);
      expect(answer.subarray(0, prefix.byteLength)).toEqual(prefix);
      expect(sha256(answer.subarray(prefix.byteLength))).toBe(sha256(pattern(70_000, index)));
    });
  });

  it("stops the target's writes while the reader does not read (bounded in flight)", async () => {
    const total = 20 * 1024 * 1024;
    const chunk = pattern(64 * 1024, 1);
    let written = 0;
    let blocked: () => void = () => {};
    const targetBlocked = new Promise<void>((resolve) => {
      blocked = resolve;
    });
    const target = await startTarget((_request, response) => {
      const writeSome = (): void => {
        while (written < total) {
          written += chunk.byteLength;
          if (!response.write(chunk)) {
            blocked();
            response.once("drain", writeSome);
            return;
          }
        }
        response.end();
      };
      writeSome();
    });
    const [clientEnd, serverEnd] = linkedChannelPair();
    // Counting RESPONSE_DATA bytes out of the server and WINDOW credit out of the client.
    let sent = 0;
    let granted = 0;
    let maxInFlight = 0;
    let reachedWindow: () => void = () => {};
    const windowSpent = new Promise<void>((resolve) => {
      reachedWindow = resolve;
    });
    const serverSend = serverEnd.send.bind(serverEnd);
    serverEnd.send = (message) => {
      if (message[0] === 0x05) sent += message.byteLength - 5;
      maxInFlight = Math.max(maxInFlight, sent - granted);
      if (sent - granted >= INITIAL_WINDOW_BYTES) reachedWindow();
      serverSend(message);
    };
    const clientSend = clientEnd.send.bind(clientEnd);
    clientEnd.send = (message) => {
      if (message[0] === 0x08) granted += new DataView(message.buffer).getUint32(5);
      clientSend(message);
    };
    const server = serveTunnel(serverEnd, { target: { host: "127.0.0.1", port: target.port } });
    const client = openTunnelClient(clientEnd);
    cleanups.push(async () => {
      client.close();
      await server.closed;
    });

    const got = await client.fetch(`${BASE}/big`, {});
    await within(windowSpent, "the window to be spent");
    await within(targetBlocked, "the target's writes to block");
    // Nothing more crosses the tunnel while nobody reads, and the target cannot write it all.
    // (Not "no write at all": the target may first block on a full socket before the window
    // is spent, then drain once more into the kernel's and Node's buffers after; a clean
    // clone's run under load saw that.)
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sent).toBe(INITIAL_WINDOW_BYTES);
    expect(written).toBeLessThan(total);

    const received = new Uint8Array(await got.arrayBuffer());
    expect(received.byteLength).toBe(total);
    expect(sent).toBe(total);
    expect(maxInFlight).toBeLessThanOrEqual(INITIAL_WINDOW_BYTES + clientEnd.maxMessageBytes);
  });

  it("answers 502 with a JSON error when the target cannot be reached", async () => {
    const target = await startTarget(() => {});
    const [clientEnd, serverEnd] = linkedChannelPair();
    const errors: string[] = [];
    // A port nobody listens on: the target's, once it is closed.
    const server = serveTunnel(serverEnd, {
      target: { host: "127.0.0.1", port: target.port },
      onStreamError: (error) => errors.push(`${error.kind} ${error.path}`),
    });
    const client = openTunnelClient(clientEnd);
    for (const cleanup of cleanups.splice(0)) await cleanup();
    cleanups.push(async () => {
      client.close();
      await server.closed;
    });
    const got = await client.fetch(`${BASE}/gone`, {});
    expect(got.status).toBe(502);
    expect(await got.json()).toMatchObject({ error: { code: "tunnel_upstream_failed" } });
    expect(errors).toEqual(["request /gone"]);
  });

  it("sets the server side's headers over the client's, drops dropHeaders and hop-by-hop ones", async () => {
    const target = await startTarget((request, response) => {
      response.end(JSON.stringify(request.headers));
    });
    const { client } = tunnelTo(target, {
      setHeaders: { authorization: "Bearer sidecar-token" },
      dropHeaders: ["Origin"],
    });
    const got = await client.fetch(`${BASE}/h`, {
      headers: {
        authorization: "Bearer client-guess",
        origin: "https://evil.example",
        "x-kept": "1",
        "keep-alive": "timeout=5",
      },
    });
    const headers = (await got.json()) as Record<string, string>;
    expect(headers.authorization).toBe("Bearer sidecar-token");
    expect(headers.origin).toBeUndefined();
    expect(headers["keep-alive"]).toBeUndefined();
    expect(headers["x-kept"]).toBe("1");
  });

  it("fails a request whose head is too large, and a response whose head is, alone", async () => {
    const target = await startTarget((request, response) => {
      if (request.url === "/big-head") response.setHeader("x-big", "v".repeat(20_000));
      response.end("fine");
    });
    const { client } = tunnelTo(target);
    await expect(
      client.fetch(`${BASE}/x`, { headers: { "x-big": "v".repeat(20_000) } }),
    ).rejects.toThrow(/fetch \/x failed: the request head of \d+ bytes is over the 16384 allowed/);
    const refused = await client.fetch(`${BASE}/big-head`, {});
    expect(refused.status).toBe(502);
    // Node's own parser bounds a head at 16 KiB too, so either may be the one refusing it.
    expect(await refused.text()).toMatch(/over the 16384 allowed|Header overflow/);
    expect(await (await client.fetch(`${BASE}/small`, {})).text()).toBe("fine");
  });

  it("fails a request the server would refuse to decode, alone", async () => {
    const target = await startTarget((_request, response) => response.end("fine"));
    const { client } = tunnelTo(target);
    await expect(client.fetch(`${BASE}/x`, { method: "GE T" })).rejects.toThrow(
      /request head is invalid: method/,
    );
    await expect(client.fetch(`${BASE}/x`, { method: "GE T" })).rejects.toBeInstanceOf(TypeError);
    expect(await (await client.fetch(`${BASE}/y`, {})).text()).toBe("fine");
  });

  it("resets a stream beyond the server side's maxConcurrentStreams", async () => {
    const target = await startTarget(() => {});
    const { client, server } = tunnelTo(target, { limits: { maxConcurrentStreams: 1 } });
    const first = client.fetch(`${BASE}/a`, {});
    await expect(client.fetch(`${BASE}/b`, {})).rejects.toThrow(/reset it \(too-many-streams/);
    expect(server.openStreams).toBe(1);
    client.close();
    await expect(first).rejects.toThrow(/tunnel closed/);
  });

  it("refuses CONNECT", async () => {
    const target = await startTarget((_request, response) => response.end("reached"));
    const { client } = tunnelTo(target);
    await expect(client.fetch(`${BASE}/x`, { method: "CONNECT" })).rejects.toThrow(
      /reset it \(method-not-allowed/,
    );
  });

  it("refuses CONNECT in any case, and never lets a body run past its content-length into a second request", async () => {
    const paths: string[] = [];
    const target = await startTarget((request, response) => {
      paths.push(request.url ?? "");
      request.resume();
      request.on("end", () => response.end("ok"));
    });
    const [rawClient, serverEnd] = linkedChannelPair();
    const server = serveTunnel(serverEnd, { target: { host: "127.0.0.1", port: target.port } });
    cleanups.push(async () => {
      rawClient.close();
      await within(server.closed, "the server's close");
    });
    const outcomes = new Map<number, string>();
    const arrived: (() => void)[] = [];
    rawClient.onMessage((message) => {
      const frame = decodeFrame(message);
      if (frame.type === "response" || frame.type === "reset") {
        outcomes.set(
          frame.streamId,
          frame.type === "reset" ? frame.reset.code : String(frame.head.status),
        );
        for (const wake of arrived.splice(0)) wake();
      }
    });
    const outcomeOf = (streamId: number) =>
      within(
        new Promise<string>((resolve) => {
          const check = () => {
            const outcome = outcomes.get(streamId);
            if (outcome === undefined) arrived.push(check);
            else resolve(outcome);
          };
          check();
        }),
        `stream ${streamId}'s answer`,
      );
    const send = (frame: Frame) => rawClient.send(encodeFrame(frame));
    send({ type: "request", streamId: 1, head: { method: "connect", path: "/", headers: [] } });
    expect(await outcomeOf(1)).toBe("method-not-allowed");
    // Two bytes announced; the rest is a whole second request, which must never reach the target.
    const smuggled = "GET /second HTTP/1.1\r\nHost: x\r\n\r\n";
    send({
      type: "request",
      streamId: 3,
      head: { method: "POST", path: "/first", headers: [["content-length", "2"]] },
    });
    send({ type: "request-data", streamId: 3, data: new TextEncoder().encode(`hi${smuggled}`) });
    send({ type: "request-end", streamId: 3 });
    await outcomeOf(3);
    send({ type: "request", streamId: 5, head: { method: "GET", path: "/third", headers: [] } });
    send({ type: "request-end", streamId: 5 });
    expect(await outcomeOf(5)).toBe("200");
    expect(paths).not.toContain("/second");
    expect(paths).toContain("/third");
  });

  it("fails a request beyond maxConcurrentStreams at once, with a TypeError", async () => {
    const target = await startTarget(() => {});
    const { client } = tunnelTo(target, {}, { maxConcurrentStreams: 2 });
    void client.fetch(`${BASE}/a`, {}).catch(() => {});
    void client.fetch(`${BASE}/b`, {}).catch(() => {});
    await expect(client.fetch(`${BASE}/c`, {})).rejects.toThrow(
      /streams open, its maxConcurrentStreams/,
    );
    await expect(client.fetch(`${BASE}/c`, {})).rejects.toBeInstanceOf(TypeError);
  });
});

/** The socket's events, recorded in order. */
function record(socket: TunnelWebSocket) {
  const events: string[] = [];
  const messages: (string | ArrayBuffer)[] = [];
  let onMessage: () => void = () => {};
  const opened = new Promise<void>((resolve) => socket.addEventListener("open", () => resolve()));
  const closed = new Promise<{ code: number; reason: string; wasClean: boolean }>((resolve) =>
    socket.addEventListener("close", (event) => {
      events.push(`close ${event.code}`);
      resolve(event);
    }),
  );
  socket.addEventListener("error", () => events.push("error"));
  socket.addEventListener("message", (event) => {
    messages.push(event.data);
    onMessage();
  });
  const nextMessage = () =>
    new Promise<void>((resolve) => {
      onMessage = resolve;
    });
  return { events, messages, opened, closed, nextMessage };
}

function targetClosed(socket: TargetSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) =>
    socket.on("close", (code, reason) => resolve({ code, reason: reason.toString("utf8") })),
  );
}

describe("a target on a Unix socket", () => {
  it("carries requests and WebSockets to it", async () => {
    const directory = mkdtempSync(join(tmpdir(), "tunnel-"));
    const socketPath = join(directory, "target.sock");
    const target = await startTarget((request, response) => response.end(`at ${request.url}`), {
      socketPath,
    });
    cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
    const { client } = tunnelTo(target, { target: { socketPath } });
    expect(await (await client.fetch(`${BASE}/unix?q=1`, {})).text()).toBe("at /unix?q=1");
    const socket = new client.WebSocket("ws://sidecar.example/v1/ws");
    const seen = record(socket);
    const upstream = await within(target.nextSocket(), "the target's socket");
    await within(seen.opened, "open");
    const next = seen.nextMessage();
    upstream.send("over unix");
    await within(next, "the message");
    expect(seen.messages).toEqual(["over unix"]);
  });
});

describe("a target on a Unix socket, against a client's path", () => {
  it("sends a WebSocket to the target's socket whatever its path says, and reaches a socket path with a space and a colon", async () => {
    const directory = mkdtempSync(join(tmpdir(), "tunnel-"));
    cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
    // `ws+unix:` URLs would send this one to `.../my dir` (cut at the colon, the space escaped).
    mkdirSync(join(directory, "my dir:x"));
    const socketPath = join(directory, "my dir:x", "target.sock");
    const target = await startTarget(() => {}, { socketPath });
    const otherPath = join(directory, "other.sock");
    const other = await startTarget(() => {}, { socketPath: otherPath });
    const [rawClient, serverEnd] = linkedChannelPair();
    const server = serveTunnel(serverEnd, {
      target: { socketPath },
      setHeaders: { authorization: "Bearer target-token" },
    });
    cleanups.push(async () => {
      rawClient.close();
      await within(server.closed, "the server's close");
    });
    const accepted = new Promise<number>((resolve) =>
      rawClient.onMessage((message) => {
        const frame = decodeFrame(message);
        if (frame.type === "ws-accepted") resolve(frame.streamId);
      }),
    );
    // What a client of its own making (a paired device) can send: a path naming another socket.
    rawClient.send(
      encodeFrame({
        type: "ws-open",
        streamId: 1,
        head: { path: `/../../../../..${otherPath}:/v1/ws`, headers: [], protocols: [] },
      }),
    );
    await within(target.nextSocket(), "the target's socket");
    expect(target.upgradeHeaders[0]?.authorization).toBe("Bearer target-token");
    expect(other.upgradeHeaders).toEqual([]);
    expect(await within(accepted, "the stream's acceptance")).toBe(1);
  });
});

describe("WebSocket through the tunnel", () => {
  it("carries text both ways and a client's close to the target", async () => {
    const target = await startTarget(() => {});
    const { client } = tunnelTo(target, { setHeaders: { authorization: "Bearer t" } });
    const socket = new client.WebSocket("ws://sidecar.example/v1/ws?x=1");
    const seen = record(socket);
    expect(socket.readyState).toBe(client.WebSocket.CONNECTING);
    const upstream = await within(target.nextSocket(), "the target's socket");
    await within(seen.opened, "open");
    expect(socket.readyState).toBe(socket.OPEN);
    expect(target.upgradeHeaders[0]?.authorization).toBe("Bearer t");
    const fromClient = new Promise<string>((resolve) =>
      upstream.on("message", (data) => resolve(data.toString("utf8"))),
    );
    socket.send("hello ✓");
    expect(await within(fromClient, "the client's message")).toBe("hello ✓");
    const next = seen.nextMessage();
    upstream.send("hi back");
    await within(next, "the target's message");
    expect(seen.messages).toEqual(["hi back"]);

    const upstreamClosed = targetClosed(upstream);
    socket.close(4000, "bye");
    expect(socket.readyState).toBe(socket.CLOSING);
    expect(await within(upstreamClosed, "the target's close")).toEqual({
      code: 4000,
      reason: "bye",
    });
    const closed = await within(seen.closed, "close");
    expect(closed).toMatchObject({ code: 4000, reason: "bye", wasClean: true });
    expect(socket.readyState).toBe(socket.CLOSED);
    expect(seen.events).toEqual(["close 4000"]);
  });

  it("mirrors the target's close and carries binary messages over the window", async () => {
    const target = await startTarget(() => {});
    const { client } = tunnelTo(target);
    const socket = new client.WebSocket("ws://sidecar.example/v1/ws");
    const seen = record(socket);
    const upstream = await within(target.nextSocket(), "the target's socket");
    await within(seen.opened, "open");
    const big = pattern(INITIAL_WINDOW_BYTES * 3 + 5, 9);
    const echoed = seen.nextMessage();
    upstream.on("message", (data, isBinary) => upstream.send(data, { binary: isBinary }));
    socket.send(new Uint8Array(big));
    await within(echoed, "the echo");
    const echo = seen.messages[0];
    expect(echo).toBeInstanceOf(ArrayBuffer);
    expect(sha256(new Uint8Array(echo as ArrayBuffer))).toBe(sha256(big));

    upstream.close(4001, "server bye");
    expect(await within(seen.closed, "close")).toMatchObject({
      code: 4001,
      reason: "server bye",
      wasClean: true,
    });
  });

  it("checks its arguments as a browser's WebSocket does", async () => {
    const target = await startTarget(() => {});
    const { client } = tunnelTo(target);
    expect(() => new client.WebSocket("ws://x/v1/ws", ["not a token"])).toThrow(/protocols.0/);
    const socket = new client.WebSocket("ws://x/v1/ws", "chat");
    const seen = record(socket);
    expect(() => socket.send("early")).toThrow(
      expect.objectContaining({ name: "InvalidStateError" }),
    );
    await within(target.nextSocket(), "the target's socket");
    await within(seen.opened, "open");
    expect(() => socket.close(1001)).toThrow(
      expect.objectContaining({ name: "InvalidAccessError" }),
    );
    expect(() => socket.close(1000, "r".repeat(124))).toThrow(
      expect.objectContaining({ name: "SyntaxError" }),
    );
    socket.close();
    expect(await within(seen.closed, "close")).toMatchObject({ code: 1005, wasClean: true });
  });

  it("closing while connecting is error, then close 1006, and the server side lets go", async () => {
    const target = await startTarget((_request, response) => response.end("ok"));
    const { client, server } = tunnelTo(target);
    const socket = new client.WebSocket("ws://x/v1/ws");
    const seen = record(socket);
    socket.close();
    expect(await within(seen.closed, "close")).toMatchObject({ code: 1006, wasClean: false });
    expect(seen.events).toEqual(["error", "close 1006"]);
    // The RESET reached the server side before this request: the stream is gone there.
    expect(await (await client.fetch(`${BASE}/after`, {})).text()).toBe("ok");
    expect(server.openStreams).toBe(0);
  });

  it("closes 1009 when the client sends a message over maxWebSocketMessageBytes", async () => {
    const target = await startTarget(() => {});
    const { client } = tunnelTo(target, { limits: { maxWebSocketMessageBytes: 100_000 } });
    const socket = new client.WebSocket("ws://x/v1/ws");
    const seen = record(socket);
    const upstream = await within(target.nextSocket(), "the target's socket");
    await within(seen.opened, "open");
    const upstreamClosed = targetClosed(upstream);
    socket.send(new Uint8Array(100_001));
    expect(await within(seen.closed, "close")).toMatchObject({ code: 1009 });
    await within(upstreamClosed, "the target's socket to close");
  });

  it("reports a refused upgrade as error, then close 1006", async () => {
    const target = await startTarget(() => {});
    const errors: string[] = [];
    const { client } = tunnelTo(target, {
      onStreamError: (error) => errors.push(error.error.message),
    });
    const socket = new client.WebSocket("ws://sidecar.example/refuse");
    const seen = record(socket);
    let errorMessage = "";
    socket.onerror = (event) => {
      errorMessage = event.message;
    };
    expect(await within(seen.closed, "close")).toMatchObject({ code: 1006, wasClean: false });
    expect(seen.events).toEqual(["error", "close 1006"]);
    expect(errorMessage).toMatch(/refused with status 401/);
    expect(errors[0]).toMatch(/401/);
  });
});

describe("the channel closing", () => {
  it("fails pending requests, errors open bodies, closes sockets 1006, and closes everything upstream", async () => {
    const responses: ServerResponse[] = [];
    let bothArrived: () => void = () => {};
    const arrived = new Promise<void>((resolve) => {
      bothArrived = resolve;
    });
    const target = await startTarget((request, response) => {
      responses.push(response);
      if (request.url === "/streaming") response.write("part");
      if (responses.length === 2) bothArrived();
    });
    const { client, server, serverEnd } = tunnelTo(target);
    const pending = client.fetch(`${BASE}/pending`, {});
    const streaming = await client.fetch(`${BASE}/streaming`, {});
    const reader = (streaming.body as ReadableStream<Uint8Array>).getReader();
    await within(reader.read(), "the first part");
    await within(arrived, "both requests at the target");
    const socket = new client.WebSocket("ws://x/v1/ws");
    const seen = record(socket);
    const upstream = await within(target.nextSocket(), "the target's socket");
    await within(seen.opened, "open");

    const requestsClosed = responses.map(closedEarly);
    const upstreamClosed = targetClosed(upstream);
    serverEnd.close(1006, "the relay went away");

    await expect(pending).rejects.toThrow(TypeError);
    await expect(pending).rejects.toThrow(/tunnel closed: the relay went away/);
    await expect(reader.read()).rejects.toThrow(/tunnel closed/);
    expect(await within(seen.closed, "close")).toMatchObject({ code: 1006, wasClean: false });
    await within(Promise.all(requestsClosed), "the target's requests to close");
    await within(upstreamClosed, "the target's socket to close");
    await within(server.closed, "the server's close");
    expect(await within(client.closed, "the client's close")).toEqual({
      code: 1006,
      reason: "the relay went away",
    });
    await expect(client.fetch(`${BASE}/after`, {})).rejects.toThrow(/tunnel closed/);
  });

  it("closes with the abort signal of serveTunnel", async () => {
    const target = await startTarget(() => {});
    const controller = new AbortController();
    const { client } = tunnelTo(target, { signal: controller.signal });
    controller.abort();
    expect(await within(client.closed, "the client's close")).toMatchObject({ code: 1001 });
  });
});

describe("a peer that breaks the protocol", () => {
  const request = (streamId: number): Frame => ({
    type: "request",
    streamId,
    head: { method: "POST", path: "/", headers: [] },
  });
  const data = (streamId: number, size: number): Frame => ({
    type: "request-data",
    streamId,
    data: new Uint8Array(size),
  });

  it.each<[string, Uint8Array[], RegExp]>([
    ["an unknown frame type", [new Uint8Array([0x77, 0, 0, 0, 1])], /unknown frame type 119/],
    ["a truncated frame", [new Uint8Array([1, 0])], /shorter than its header/],
    [
      "a head that is not JSON",
      [new Uint8Array([1, 0, 0, 0, 1, 0x7b])],
      /tunnel protocol error: the REQUEST head is not JSON/,
    ],
    [
      "a window overrun",
      [request(1), ...Array.from({ length: 5 }, () => data(1, 60_000))].map(encodeFrame),
      /the client overran its window/,
    ],
    ["a reused stream id", [request(1), request(1)].map(encodeFrame), /stream id 1 reused/],
    [
      "a grant beyond the window (it would let the server queue without bound)",
      [request(1), { type: "window", streamId: 1, credit: 0xffff_ffff } as Frame].map(encodeFrame),
      /beyond the \d+-byte window/,
    ],
    ["a frame for a stream never opened", [data(5, 1)].map(encodeFrame), /never opened/],
    [
      "a frame only the server sends",
      [encodeFrame({ type: "response-end", streamId: 1 })],
      /only the server side sends/,
    ],
  ])("closes the channel on %s, with the reason", async (_what, frames, reason) => {
    const target = await startTarget((request) => {
      request.resume();
    });
    const [rawClient, serverEnd] = linkedChannelPair();
    const server = serveTunnel(serverEnd, { target: { host: "127.0.0.1", port: target.port } });
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      rawClient.onClose((code, why) => resolve({ code, reason: why })),
    );
    for (const frame of frames) rawClient.send(frame);
    const { code, reason: why } = await within(closed, "the channel's close");
    expect(code).toBe(1002);
    expect(why).toMatch(reason);
    await within(server.closed, "the server's close");
  });

  it("closes the client's channel on a malformed frame from the server side", async () => {
    const [clientEnd, rawServer] = linkedChannelPair();
    const client = openTunnelClient(clientEnd);
    const pending = client.fetch(`${BASE}/x`, {});
    rawServer.send(encodeFrame({ type: "response-data", streamId: 1, data: new Uint8Array(1) }));
    expect(await within(client.closed, "the client's close")).toMatchObject({
      code: 1002,
      reason: expect.stringMatching(/response-data frame where the awaiting-head phase/),
    });
    await expect(pending).rejects.toThrow(/tunnel closed: tunnel protocol error/);
  });

  it("closes the client's channel on a frame only the client side sends", async () => {
    const [clientEnd, rawServer] = linkedChannelPair();
    const client = openTunnelClient(clientEnd);
    void client.fetch(`${BASE}/x`, {}).catch(() => {});
    rawServer.send(encodeFrame({ type: "request-end", streamId: 1 }));
    expect(await within(client.closed, "the client's close")).toMatchObject({
      code: 1002,
      reason: expect.stringMatching(/request-end frame, which only the client side sends/),
    });
  });

  it("answers a PING with its PONG", async () => {
    const [clientEnd, raw] = linkedChannelPair();
    const client = openTunnelClient(clientEnd);
    const pong = new Promise<Uint8Array>((resolve) => raw.onMessage(resolve));
    raw.send(encodeFrame({ type: "ping", streamId: 0, data: new Uint8Array([7]) }));
    expect([...(await within(pong, "the pong"))]).toEqual([0x0e, 0, 0, 0, 0, 7]);
    client.close();
  });
});
