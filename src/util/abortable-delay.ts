/**
 * The one abortable wait, for the library (`util/abort.ts` `sleep`) and the isomorphic client
 * (`sidecar-client/deadline.ts`) alike: plain timers, no Node module, so a browser can load it.
 */

/** Waits `ms`; rejects with `aborted(signal.reason)` at once if `signal` fires first. */
export function abortableDelay(
  ms: number,
  signal: AbortSignal | undefined,
  aborted: (reason: unknown) => Error,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(aborted(signal.reason));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(aborted(signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
