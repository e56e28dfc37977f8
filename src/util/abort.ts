/**
 * Helpers for bounded, abortable waits. Every network wait in the library goes
 * through `withDeadline` so that it has both a time bound and the caller's signal.
 */
import { AbortError, TimeoutError } from "../errors.js";
import { abortableDelay } from "./abortable-delay.js";

export interface Deadline {
  /** Fires when the caller aborts or the bound runs out. */
  signal: AbortSignal;
  /** Turns whatever a wait threw into AbortError / TimeoutError when the deadline caused it. */
  classify(error: unknown): unknown;
  /** Stops the timer; call it once the wait is over. */
  dispose(): void;
}

/** Combines an optional caller signal with a time bound (`timeoutMs <= 0` or Infinity: no bound). */
export function withDeadline(
  what: string,
  timeoutMs: number,
  callerSignal?: AbortSignal,
): Deadline {
  const controller = new AbortController();
  const timedOut = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  if (Number.isFinite(timeoutMs) && timeoutMs > 0) {
    timer = setTimeout(() => {
      timedOut.abort();
      controller.abort(new TimeoutError(what, timeoutMs));
    }, timeoutMs);
    timer.unref();
  }
  const onCallerAbort = (): void =>
    controller.abort(new AbortError(what, { cause: callerSignal?.reason }));
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener("abort", onCallerAbort, { once: true });

  return {
    signal: controller.signal,
    classify(error: unknown): unknown {
      // What fired decides, not the error's own class: a nested wait aborted by this
      // deadline's timer reports an AbortError, but for the caller it was a timeout.
      if (callerSignal?.aborted) {
        return error instanceof AbortError ? error : new AbortError(what, { cause: error });
      }
      if (timedOut.signal.aborted) {
        return error instanceof TimeoutError
          ? error
          : new TimeoutError(what, timeoutMs, { cause: error });
      }
      return error;
    },
    dispose(): void {
      if (timer) clearTimeout(timer);
      callerSignal?.removeEventListener("abort", onCallerAbort);
    },
  };
}

/** Waits `ms`, or rejects with AbortError as soon as `signal` fires. */
export function sleep(ms: number, signal?: AbortSignal, what = "wait"): Promise<void> {
  return abortableDelay(ms, signal, (reason) => new AbortError(what, { cause: reason }));
}

/** Throws AbortError if the signal has already fired. */
export function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw new AbortError(what, { cause: signal.reason });
}
