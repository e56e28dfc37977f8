/**
 * The `ws` package (the sidecar's WebSocket library, through @fastify/websocket) for tests:
 * a devDependency (pinned to the version @fastify/websocket brings); it ships no types and
 * @types/ws is not installed, so the little the tests use is typed
 * here, and loaded with `require` (an `import` of an untyped module fails the type check).
 */
import type { IncomingMessage } from "node:http";
import { createRequire } from "node:module";
import type { Duplex } from "node:stream";
import type { WebSocketConstructor } from "../../src/client/index.js";
import type { BinarySocketConstructor } from "../../src/remote/binary-socket.js";

/** A server-side socket. */
export interface ServerSocket {
  readonly readyState: number;
  readonly OPEN: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  on(event: "message", listener: (data: Buffer) => void): this;
  on(event: "close", listener: () => void): this;
}

export interface WebSocketServerLike {
  readonly clients: Set<ServerSocket>;
  handleUpgrade(
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    done: (socket: ServerSocket) => void,
  ): void;
  close(): void;
}

const ws = createRequire(import.meta.url)("ws") as {
  WebSocket: WebSocketConstructor;
  WebSocketServer: new (options: { noServer: true }) => WebSocketServerLike;
};

/** `ws`'s client WebSocket, as the `WebSocket` option of a BridgeClient. */
export const NodeWebSocket: WebSocketConstructor = ws.WebSocket;
/**
 * The same class as the `WebSocket` of remote access (`pairDevice`, `remoteTransport`): `ws`'s
 * client has `binaryType` and binary `send` too, which the client's type leaves out.
 */
export const NodeBinarySocket = ws.WebSocket as unknown as BinarySocketConstructor;
export const WebSocketServer = ws.WebSocketServer;
