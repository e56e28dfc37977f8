/**
 * A signal that aborts when any of `signals` does, or `ms` from now with the reason
 * `AbortSignal.timeout` gives (a `TimeoutError` DOMException).
 *
 * Not `AbortSignal.any([...signals, AbortSignal.timeout(ms)])`: Node 20's `AbortSignal.any`
 * holds its sources weakly, and the timer of `AbortSignal.timeout` holds its signal weakly too,
 * so a garbage collection before the time is up takes the timeout away and the combined signal
 * never aborts (a reliability run went on past its 5 minutes; `timeout-signal.test.ts` forces
 * the collection). Here the timer holds its controller. Isomorphic: the typed client uses it.
 */
export function anySignalWithTimeout(signals: readonly AbortSignal[], ms: number): AbortSignal {
  const time = new AbortController();
  const timer = setTimeout(() => {
    time.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError"));
  }, ms);
  // Like AbortSignal.timeout's: a bound still running does not keep a Node process alive.
  if (typeof timer === "object" && typeof timer.unref === "function") timer.unref();
  const signal = AbortSignal.any([...signals, time.signal]);
  signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
  return signal;
}
