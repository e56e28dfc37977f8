/**
 * The part of the WHATWG `WebSocket` the client uses: the browser's global one and the `ws`
 * package's (Node 20 has no global WebSocket; pass `ws`'s as the `WebSocket` option) both fit.
 */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "open", listener: () => void): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  addEventListener(
    type: "close",
    listener: (event: { code: number; reason: string }) => void,
  ): void;
  addEventListener(type: "error", listener: (event: unknown) => void): void;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** `readyState` of an open socket (the same constant in every implementation). */
export const OPEN = 1;
