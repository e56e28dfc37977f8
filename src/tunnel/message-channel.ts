/**
 * What the tunnel runs on: one ordered, reliable channel of binary messages, in practice the
 * relay's end-to-end encrypted connection. The tunnel needs nothing else of it.
 */

/** One ordered, reliable channel of binary messages (an encrypted relay connection). */
export interface MessageChannel {
  /** The largest message the channel carries (e.g. 65535 - 16); the tunnel never sends more. */
  readonly maxMessageBytes: number;
  /** Sends one message; after the channel closed, the message is dropped. */
  send(message: Uint8Array): void;
  close(code?: number, reason?: string): void;
  /** Bytes sent but not yet handed on (for backpressure); 0 when unknown. */
  readonly bufferedAmount: number;
  /** Every message the peer sent, in order; returns the unsubscribe. */
  onMessage(listener: (message: Uint8Array) => void): () => void;
  /** Once, when the channel closed (by either side); returns the unsubscribe. */
  onClose(listener: (code: number, reason: string) => void): () => void;
}
