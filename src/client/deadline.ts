/**
 * A bound and the caller's signal, joined into one signal for one call, and the error that
 * says which of them fired. No `node:` imports: timers are the global ones.
 */
import { abortableDelay } from "../util/abortable-delay.js";
import { BridgeAbortError, BridgeTimeoutError } from "./errors.js";

export interface Deadline {
  signal: AbortSignal;
  /** The error to throw for whatever the wait threw, when the deadline caused it. */
  classify(error: unknown): unknown;
  dispose(): void;
}

/** `timeoutMs` of 0 or Infinity: no bound. */
export function deadlineOf(what: string, timeoutMs: number, callerSignal?: AbortSignal): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (Number.isFinite(timeoutMs) && timeoutMs > 0) {
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new BridgeTimeoutError(what, timeoutMs));
    }, timeoutMs);
    unrefTimer(timer);
  }
  const onAbort = (): void =>
    controller.abort(new BridgeAbortError(what, { cause: callerSignal?.reason }));
  if (callerSignal?.aborted) onAbort();
  else callerSignal?.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    classify(error) {
      if (callerSignal?.aborted) {
        return error instanceof BridgeAbortError
          ? error
          : new BridgeAbortError(what, { cause: error });
      }
      if (timedOut) {
        return error instanceof BridgeTimeoutError
          ? error
          : new BridgeTimeoutError(what, timeoutMs, { cause: error });
      }
      return error;
    },
    dispose() {
      if (timer !== undefined) clearTimeout(timer);
      callerSignal?.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * In Node a pending timer keeps the process alive; a client's housekeeping timers must not.
 * Browsers' timer ids are numbers without `unref`.
 */
export function unrefTimer(timer: unknown): void {
  if (typeof timer === "object" && timer !== null && "unref" in timer) {
    const unref = (timer as { unref?: unknown }).unref;
    if (typeof unref === "function") unref.call(timer);
  }
}

/** Waits `ms`; rejects with BridgeAbortError as soon as `signal` fires. */
export function sleep(ms: number, signal: AbortSignal | undefined, what: string): Promise<void> {
  return abortableDelay(ms, signal, (reason) => new BridgeAbortError(what, { cause: reason }));
}
