/**
 * A WebSocket's events as `addEventListener` delivers them, the same in the WHATWG API (a
 * browser's) and in `ws`: the one shape the client's, the relay's and remote access's socket
 * types extend. Types only: isomorphic.
 */
export interface SocketEventTarget {
  addEventListener(type: "open", listener: () => void): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  addEventListener(
    type: "close",
    listener: (event: { code: number; reason: string }) => void,
  ): void;
  addEventListener(type: "error", listener: (event: unknown) => void): void;
}
