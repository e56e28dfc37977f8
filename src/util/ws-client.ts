/**
 * `ws`'s client WebSocket, typed by the few members the bridge uses (`ws` ships no types of its
 * own): the sockets this process opens itself — to OpenCode's PTY, and between a cluster's
 * sidecars.
 */
import { createRequire } from "node:module";

export interface WsClient {
  readonly readyState: number;
  send(data: string): void;
  ping(): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  on(event: "message", listener: (data: Buffer, isBinary: boolean) => void): unknown;
  on(event: "open" | "pong", listener: () => void): unknown;
  on(event: "close", listener: (code: number, reason: Buffer) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(
    event: "unexpected-response",
    listener: (request: { destroy(): void }, response: { statusCode?: number }) => void,
  ): unknown;
}

export interface WsClientOptions {
  headers: Record<string, string>;
  handshakeTimeout: number;
  maxPayload?: number;
  /** CA certificate(s), PEM, a `wss:` server's certificate must chain to. */
  ca?: string;
}

type WsClientClass = new (url: string, options: WsClientOptions) => WsClient;

export const WsClientSocket = (createRequire(import.meta.url)("ws") as { WebSocket: WsClientClass })
  .WebSocket;

/** `readyState` of an open socket. */
export const WS_OPEN = 1;
