/**
 * One stream the client opened on a replay. A recorded event is handed to it only while its
 * reader waits for the next one, so events reach the application in the order and at the
 * points they were recorded, never piling up ahead of the reader.
 */
import { AbortError } from "../../errors.js";

export class ReplaySubscription {
  readonly #queue: unknown[] = [];
  /** Set while the reader waits for the next event. */
  #waiting: { wake(): void; fail(error: Error): void } | undefined;
  #failure: Error | undefined;
  #closed = false;

  /** `operation`: the stream operation it was opened with (recorded events name it). */
  constructor(readonly operation: string) {}

  /** Closed by its reader (or an abort) or by a failed replay: it takes no more events. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Its reader waits for an event: one may be delivered now. */
  get waiting(): boolean {
    return this.#waiting !== undefined;
  }

  /** Hands the waiting reader `event`. */
  deliver(event: unknown): void {
    this.#queue.push(event);
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.wake();
  }

  /**
   * The next event, once delivered. Rejects with AbortError on `signal`, and with the replay's
   * failure once it failed.
   */
  next(signal: AbortSignal | undefined): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const take = (): void => {
        if (this.#queue.length > 0) {
          signal?.removeEventListener("abort", onAbort);
          resolve(this.#queue.shift());
          return;
        }
        this.#waiting = { wake: take, fail: reject };
      };
      const onAbort = (): void => {
        this.#waiting = undefined;
        reject(new AbortError(`replayed ${this.operation} stream`));
      };
      if (signal?.aborted) {
        onAbort();
        return;
      }
      if (this.#failure) {
        reject(this.#failure);
        return;
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      take();
    });
  }

  /** Takes no more events; recorded events for its operation go to a later one. */
  close(): void {
    this.#closed = true;
    this.#waiting = undefined;
  }

  /** The replay failed: the waiting reader (and any later read) gets `error`. */
  fail(error: Error): void {
    this.#failure ??= error;
    this.#closed = true;
    this.#waiting?.fail(error);
    this.#waiting = undefined;
  }
}
