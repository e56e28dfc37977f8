/**
 * Items pushed by callbacks, read with `for await` by one consumer: the producer never waits
 * for the reader, and the reader loses nothing it was sent. For turning listeners (a shared
 * stream's, several readers') into one async iterable.
 */
import { AbortError } from "../errors.js";

export class AsyncQueue<T> {
  #items: T[] = [];
  #end: { error: unknown } | undefined;
  #wake: (() => void) | undefined;

  push(item: T): void {
    this.#items.push(item);
    this.#notify();
  }

  /** No item comes any more: the reader gets what was queued, then `error` is thrown. */
  fail(error: unknown): void {
    this.#end ??= { error };
    this.#notify();
  }

  /**
   * The items as they come, until `signal` aborts (at once, queued items or not: the
   * iteration throws `AbortError`) or `fail` was called (after the queued items).
   */
  async *read(signal: AbortSignal, what: string): AsyncIterable<T> {
    const wake = () => this.#notify();
    signal.addEventListener("abort", wake, { once: true });
    try {
      for (;;) {
        if (signal.aborted) throw new AbortError(`${what} was closed`);
        if (this.#items.length > 0) {
          const batch = this.#items;
          this.#items = [];
          yield* batch;
          continue;
        }
        if (this.#end !== undefined) throw this.#end.error;
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
      }
    } finally {
      signal.removeEventListener("abort", wake);
    }
  }

  #notify(): void {
    const waiting = this.#wake;
    this.#wake = undefined;
    waiting?.();
  }
}
