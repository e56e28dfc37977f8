/**
 * `ws`'s client WebSocket, typed by the members the tunnel's server side uses (`ws` ships no
 * types), loaded with `require` as src/util/ws-client.ts does.
 */
import { createRequire } from "node:module";

/** The server side's socket to the target. */
export interface UpstreamWebSocket {
  readonly readyState: number;
  readonly protocol: string;
  send(data: Uint8Array, options: { binary: boolean }, done: (error?: Error) => void): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  /** Stops reading from the target (backpressure) until `resume()`. */
  pause(): void;
  resume(): void;
  on(event: "open", listener: () => void): unknown;
  on(event: "message", listener: (data: Buffer, isBinary: boolean) => void): unknown;
  on(event: "close", listener: (code: number, reason: Buffer) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(
    event: "unexpected-response",
    listener: (request: unknown, response: { statusCode?: number; statusMessage?: string }) => void,
  ): unknown;
}

export interface UpstreamWebSocketOptions {
  headers: Record<string, string>;
  perMessageDeflate: false;
  maxPayload: number;
  handshakeTimeout: number;
}

type UpstreamWebSocketClass = new (
  url: string,
  protocols: string[],
  options: UpstreamWebSocketOptions,
) => UpstreamWebSocket;

export const UpstreamWebSocketClient = (
  createRequire(import.meta.url)("ws") as { WebSocket: UpstreamWebSocketClass }
).WebSocket;
