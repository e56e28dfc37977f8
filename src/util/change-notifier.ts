/** Lets readers of an in-memory sequence wait, abortably, until something is added. */
import { AbortError, TimeoutError } from "../errors.js";
import { withDeadline } from "./abort.js";

/** See `ChangeNotifier.waiter`. */
export interface ChangeWaiter {
  wait(): Promise<void>;
  close(): void;
}

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
   * One reader's repeated waits, each resolving at the next `notify()`; a wait under way (or
   * begun after) rejects with AbortError once `signal` fires. The signal is listened to once
   * for all of them, not at every wait: a turn's reader waits once per streamed delta.
   * `close()` when done reading.
   */
  waiter(signal: AbortSignal | undefined, what: string): ChangeWaiter {
    let pending: { resolve: () => void; reject: (error: AbortError) => void } | undefined;
    const wake = (): void => {
      const waiting = pending;
      pending = undefined;
      waiting?.resolve();
    };
    const onAbort = (): void => {
      this.#wakers.delete(wake);
      const waiting = pending;
      pending = undefined;
      waiting?.reject(new AbortError(what));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    return {
      wait: () =>
        new Promise<void>((resolve, reject) => {
          if (signal?.aborted) {
            reject(new AbortError(what));
            return;
          }
          pending = { resolve, reject };
          this.#wakers.add(wake);
        }),
      close: () => {
        signal?.removeEventListener("abort", onAbort);
        this.#wakers.delete(wake);
        pending = undefined;
      },
    };
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
