/**
 * The WebSocket a remote connection runs on, either end: the browser's global one and `ws`'s
 * (both with `binaryType = "arraybuffer"` and `addEventListener`) fit.
 */
import type { SocketEventTarget } from "../util/socket-events.js";

export interface BinarySocket extends SocketEventTarget {
  binaryType: string;
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: Uint8Array): void;
  close(code?: number, reason?: string): void;
}

export type BinarySocketConstructor = new (url: string) => BinarySocket;

/** `readyState` of an open socket, and of a closed one (the same in every implementation). */
export const SOCKET_OPEN = 1;
export const SOCKET_CLOSED = 3;

/** A message's bytes, or undefined for a text message (the remote channel carries only binary). */
export function bytesOfMessage(data: unknown): Uint8Array | undefined {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data))
    return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return undefined;
}
