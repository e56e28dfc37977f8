/** Lets readers of an in-memory sequence wait, abortably, until something is added. */
import { AbortError, TimeoutError } from "../errors.js";
import { withDeadline } from "./abort.js";

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

  /**
   * Waits until `condition()` holds, re-checking at each `notify()`, for at most `timeoutMs`.
   * Resolves true when it holds, false when the bound passed first; rejects with AbortError
   * when `signal` fires.
   */
  async until(
    condition: () => boolean,
    options: { what: string; timeoutMs: number; signal?: AbortSignal | undefined },
  ): Promise<boolean> {
    const deadline = withDeadline(options.what, options.timeoutMs, options.signal);
    try {
      while (!condition()) await this.wait(deadline.signal, options.what);
      return true;
    } catch (error) {
      // Only the bound running out means "not yet"; the caller's abort and an error of the
      // condition itself are the caller's to handle.
      const classified = deadline.classify(error);
      if (classified instanceof TimeoutError) return false;
      throw classified;
    } finally {
      deadline.dispose();
    }
  }
}
