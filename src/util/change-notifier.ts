/** Lets readers of an in-memory sequence wait, abortably, until something is added. */
import { AbortError } from "../errors.js";

export class ChangeNotifier {
  readonly #wakers = new Set<() => void>();

  /** Wakes every waiting reader. */
  notify(): void {
    for (const wake of this.#wakers) wake();
    this.#wakers.clear();
  }

  /** Resolves at the next `notify()`; rejects with AbortError if `signal` fires first. */
  wait(signal: AbortSignal | undefined, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(new AbortError(what));
        return;
      }
      const onAbort = (): void => {
        this.#wakers.delete(wake);
        reject(new AbortError(what));
      };
      const wake = (): void => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      this.#wakers.add(wake);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}
