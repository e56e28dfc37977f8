/**
 * Two `MessageChannel`s joined in memory, for tests (the tunnel's own and users'): what one
 * sends the other receives, later (a microtask), in order, as a copy, so that neither side can
 * depend on being called back synchronously or on sharing a buffer with its peer.
 */
import { UsageError } from "../errors.js";
import type { MessageChannel } from "./message-channel.js";

export interface LinkedChannelOptions {
  /** The largest message either side may send; a larger one throws (a bug of the sender). */
  maxMessageBytes?: number;
}

/** The default largest message: a Noise transport message's plaintext (65535 - 16 tag bytes). */
export const LINKED_CHANNEL_MAX_MESSAGE_BYTES = 65_535 - 16;

/** Two ends of one in-memory channel; closing either closes both. */
export function linkedChannelPair(
  options: LinkedChannelOptions = {},
): [MessageChannel, MessageChannel] {
  const maxMessageBytes = options.maxMessageBytes ?? LINKED_CHANNEL_MAX_MESSAGE_BYTES;
  const state = { closed: false };
  const a = new LinkedEnd(maxMessageBytes, state);
  const b = new LinkedEnd(maxMessageBytes, state);
  a.peer = b;
  b.peer = a;
  return [a, b];
}

class LinkedEnd implements MessageChannel {
  peer: LinkedEnd | undefined;
  #buffered = 0;
  readonly #messageListeners = new Set<(message: Uint8Array) => void>();
  readonly #closeListeners = new Set<(code: number, reason: string) => void>();

  constructor(
    readonly maxMessageBytes: number,
    private readonly pair: { closed: boolean },
  ) {}

  get bufferedAmount(): number {
    return this.#buffered;
  }

  send(message: Uint8Array): void {
    if (message.byteLength > this.maxMessageBytes) {
      throw new UsageError(
        `a message of ${message.byteLength} bytes exceeds the channel's ${this.maxMessageBytes}`,
      );
    }
    if (this.pair.closed) return;
    const copy = message.slice();
    this.#buffered += copy.byteLength;
    queueMicrotask(() => {
      this.#buffered -= copy.byteLength;
      if (this.pair.closed) return;
      const peer = this.peer;
      if (peer === undefined) return;
      for (const listener of [...peer.#messageListeners]) listener(copy);
    });
  }

  close(code = 1000, reason = ""): void {
    if (this.pair.closed) return;
    this.pair.closed = true;
    queueMicrotask(() => {
      this.#emitClose(code, reason);
      const peer = this.peer;
      if (peer !== undefined) peer.#emitClose(code, reason);
    });
  }

  onMessage(listener: (message: Uint8Array) => void): () => void {
    this.#messageListeners.add(listener);
    return () => this.#messageListeners.delete(listener);
  }

  onClose(listener: (code: number, reason: string) => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  #emitClose(code: number, reason: string): void {
    const listeners = [...this.#closeListeners];
    this.#closeListeners.clear();
    this.#messageListeners.clear();
    for (const listener of listeners) listener(code, reason);
  }
}
