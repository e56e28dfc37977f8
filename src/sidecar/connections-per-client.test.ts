/**
 * The bound on connections per client address, over real sockets on a listening sidecar (the
 * stand-in bridge: no OpenCode is involved): keep-alive HTTP connections and WebSockets count
 * alike; past the bound an HTTP request and a WebSocket handshake are answered 429
 * `too_many_connections` and the connection closed; closing one frees its slot.
 */
import { connect, type Socket } from "node:net";
import { afterEach, expect, it } from "vitest";
import { type SidecarHarness, sidecarHarness, TOKEN } from "../../test/support/sidecar-harness.js";
import { within } from "../../test/support/within.js";

const WAIT_MS = 10_000;
let harness: SidecarHarness | undefined;
const opened: { close(): void }[] = [];

afterEach(async () => {
  for (const connection of opened.splice(0)) connection.close();
  await harness?.close();
  harness = undefined;
});

const healthz = (port: number) =>
  `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n`;

/** A WebSocket handshake, written by hand: the status line is what the test reads. */
const handshake = (port: number) =>
  [
    "GET /v1/ws HTTP/1.1",
    `Host: 127.0.0.1:${port}`,
    "Connection: Upgrade",
    "Upgrade: websocket",
    "Sec-WebSocket-Version: 13",
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
    `Authorization: Bearer ${TOKEN}`,
    "",
    "",
  ].join("\r\n");

/** A connection and the first answer on it (after a 101 answer it is a WebSocket). */
async function connection(
  port: number,
  request: string,
): Promise<{ socket: Socket; status: number; body: string; closed: Promise<void> }> {
  const socket = connect(port, "127.0.0.1");
  opened.push({ close: () => socket.destroy() });
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  let text = "";
  const answered = new Promise<void>((resolve, reject) => {
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      // One whole answer: headers, then the body of the length they announce.
      const end = text.indexOf("\r\n\r\n");
      const length = /content-length: (\d+)/i.exec(text)?.[1];
      if (end === -1) return;
      if (/^HTTP\/1\.1 101/.test(text)) resolve();
      if (length !== undefined && text.length >= end + 4 + Number(length)) resolve();
    });
    socket.once("error", reject);
    socket.once("close", () =>
      reject(new Error(`closed before an answer: ${JSON.stringify(text)}`)),
    );
  });
  socket.write(request);
  await within(answered, "an answer on a new connection", WAIT_MS);
  const status = Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1]);
  return { socket, status, body: text.slice(text.indexOf("\r\n\r\n") + 4), closed };
}

it("refuses a client's connections past the bound with 429, HTTP and WebSocket alike; closing one frees a slot", async () => {
  harness = sidecarHarness({ allowHosts: ["127.0.0.1"], limits: { connectionsPerClient: 2 } });
  await harness.app.listen({ host: "127.0.0.1", port: 0 });
  const address = harness.app.server.address();
  if (address === null || typeof address === "string") throw new Error("not listening on TCP");
  const port = address.port;

  const first = await connection(port, healthz(port));
  expect(first.status).toBe(200);
  const second = await connection(port, handshake(port));
  expect(second.status).toBe(101);

  const third = await connection(port, healthz(port));
  expect(third.status).toBe(429);
  expect(JSON.parse(third.body)).toMatchObject({ error: { code: "too_many_connections" } });
  await within(third.closed, "the refused connection's close", WAIT_MS);
  const refusedSocket = await connection(port, handshake(port));
  expect(refusedSocket.status).toBe(429);
  expect(JSON.parse(refusedSocket.body)).toMatchObject({ error: { code: "too_many_connections" } });

  // The WebSocket closes: its slot is free again, once the server has seen the close.
  second.socket.destroy();
  await within(second.closed, "the WebSocket's close", WAIT_MS);
  const freed = await within(
    (async () => {
      for (let attempt = 1; attempt <= 100; attempt++) {
        const next = await connection(port, healthz(port));
        if (next.status === 200) return next;
        await next.closed;
      }
      throw new Error("every connection was refused after one was closed");
    })(),
    "a connection once one was closed",
    WAIT_MS,
  );
  expect(freed.status).toBe(200);
  // The first connection was never disturbed: it still answers.
  first.socket.write(healthz(port));
  const again = await within(
    new Promise<string>((resolve) =>
      first.socket.once("data", (chunk: Buffer) => resolve(chunk.toString())),
    ),
    "a second answer on the first connection",
    WAIT_MS,
  );
  expect(again).toMatch(/^HTTP\/1\.1 200/);
});
