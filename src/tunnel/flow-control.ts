/**
 * Per-stream flow control, both halves: the sender spends the credit its peer granted and
 * queues the rest; the receiver counts what arrives against what it granted and grants again
 * as its consumer takes the data, so a consumer that stops reading stops its sender.
 */
import { MalformedFrameError } from "./tunnel-frames.js";
import { INITIAL_WINDOW_BYTES, WINDOW_GRANT_THRESHOLD_BYTES } from "./tunnel-limits.js";

/** Sends one chunk of an item; `last` on the item's final chunk. */
export type ChunkEmitter = (chunk: Uint8Array, last: boolean) => void;

interface QueuedItem {
  data: Uint8Array;
  offset: number;
  emit: ChunkEmitter;
}

/** The sending half: items go out in order, in chunks no larger than the credit and a frame. */
export class CreditedSender {
  #credit = INITIAL_WINDOW_BYTES;
  #queued: QueuedItem[] = [];
  #queuedBytes = 0;
  #drainListeners: (() => void)[] = [];

  constructor(private readonly maxChunkBytes: number) {}

  /** Bytes waiting for credit. */
  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  /** Whether nothing waits for credit (what was written has been handed to the channel). */
  get idle(): boolean {
    return this.#queued.length === 0;
  }

  /**
   * Sends `data` (an empty item is sent too: an end marker, an empty message) once everything
   * written before it went; returns whether it all went at once.
   */
  write(data: Uint8Array, emit: ChunkEmitter): boolean {
    this.#queued.push({ data, offset: 0, emit });
    this.#queuedBytes += data.byteLength;
    this.#flush();
    return this.idle;
  }

  /**
   * The peer granted `credit` more bytes. A peer only gives back what it was sent, so the
   * credit never exceeds the window: more is a protocol error (it would let this side queue
   * without bound toward a peer that stopped reading).
   */
  grant(credit: number): void {
    if (this.#credit + credit > INITIAL_WINDOW_BYTES) {
      throw new MalformedFrameError(
        `the peer granted ${credit} bytes of credit, beyond the ${INITIAL_WINDOW_BYTES}-byte window`,
      );
    }
    this.#credit += credit;
    this.#flush();
  }

  /** `listener` runs once, when the queue is next empty (at once if it is). */
  onceIdle(listener: () => void): void {
    if (this.idle) listener();
    else this.#drainListeners.push(listener);
  }

  /** Drops what waits (the stream is gone). */
  clear(): void {
    this.#queued = [];
    this.#queuedBytes = 0;
    this.#drainListeners = [];
  }

  #flush(): void {
    while (this.#queued.length > 0) {
      const item = this.#queued[0] as QueuedItem;
      const remaining = item.data.byteLength - item.offset;
      if (remaining > 0 && this.#credit === 0) return;
      const size = Math.min(remaining, this.#credit, this.maxChunkBytes);
      const chunk = item.data.subarray(item.offset, item.offset + size);
      item.offset += size;
      this.#credit -= size;
      this.#queuedBytes -= size;
      const last = item.offset === item.data.byteLength;
      if (last) this.#queued.shift();
      item.emit(chunk, last);
    }
    const listeners = this.#drainListeners;
    this.#drainListeners = [];
    for (const listener of listeners) listener();
  }
}

/** The receiving half: catches a peer that overruns its window, and says when to grant. */
export class ReceiveWindow {
  #available = INITIAL_WINDOW_BYTES;
  #ungranted = 0;

  /** Counts `bytes` arrived; false when they exceed what was granted (a protocol error). */
  take(bytes: number): boolean {
    if (bytes > this.#available) return false;
    this.#available -= bytes;
    return true;
  }

  /** The consumer took `bytes`; returns the credit to grant now (0: not yet worth a frame). */
  consumed(bytes: number): number {
    this.#ungranted += bytes;
    if (this.#ungranted < WINDOW_GRANT_THRESHOLD_BYTES) return 0;
    const credit = this.#ungranted;
    this.#ungranted = 0;
    this.#available += credit;
    return credit;
  }
}
