/**
 * `ws` typed by the members the relay and its connector use (`ws` ships no types, @types/ws is
 * not installed), loaded with `require` as src/util/ws-client.ts does.
 */
import type { IncomingMessage } from "node:http";
import { createRequire } from "node:module";
import type { Duplex } from "node:stream";
import type { SocketEventTarget } from "../util/socket-events.js";

type MessageListener = (data: Buffer, isBinary: boolean) => void;
type CloseListener = (code: number, reason: Buffer) => void;

interface Events<Self> {
  (event: "message", listener: MessageListener): Self;
  (event: "close", listener: CloseListener): Self;
  (event: "open" | "pong", listener: () => void): Self;
  (event: "error", listener: (error: Error) => void): Self;
  (
    event: "unexpected-response",
    listener: (request: unknown, response: { statusCode?: number }) => void,
  ): Self;
}

/** One WebSocket, either end. */
export interface WebSocket extends SocketEventTarget {
  readonly readyState: number;
  readonly CONNECTING: 0;
  readonly OPEN: 1;
  readonly CLOSING: 2;
  readonly CLOSED: 3;
  /** Bytes queued to send, not yet handed to the OS. */
  readonly bufferedAmount: number;
  send(data: string | Buffer | Uint8Array, options?: { binary?: boolean }): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  ping(): void;
  /** Stops reading from the peer (backpressure) until `resume()`. */
  pause(): void;
  resume(): void;
  on: Events<this>;
  once: Events<this>;
  /** "nodebuffer" by default; "arraybuffer" makes `addEventListener`'s messages ArrayBuffers. */
  binaryType: string;
  off(event: string, listener: (...args: never[]) => void): this;
}

export interface WebSocketClientOptions {
  maxPayload?: number;
  perMessageDeflate?: boolean;
  handshakeTimeout?: number;
  /** CA certificate(s), PEM, for a relay with a certificate of its own. */
  ca?: string | Buffer;
  headers?: Record<string, string>;
}

export interface WebSocketServer {
  readonly clients: Set<WebSocket>;
  handleUpgrade(
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    done: (socket: WebSocket) => void,
  ): void;
  close(): void;
}

const ws = createRequire(import.meta.url)("ws") as {
  WebSocket: new (url: string, options?: WebSocketClientOptions) => WebSocket;
  WebSocketServer: new (options: {
    noServer: true;
    maxPayload: number;
    perMessageDeflate: boolean;
  }) => WebSocketServer;
};

export const WebSocketClient = ws.WebSocket;
export const WebSocketServerClass = ws.WebSocketServer;
