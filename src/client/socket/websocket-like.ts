/**
 * The part of the WHATWG `WebSocket` the client uses: the browser's global one and the `ws`
 * package's (Node 20 has no global WebSocket; pass `ws`'s as the `WebSocket` option) both fit.
 */
import type { SocketEventTarget } from "../../util/socket-events.js";

export interface WebSocketLike extends SocketEventTarget {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** `readyState` of an open socket (the same constant in every implementation). */
export const OPEN = 1;
