/**
 * A signal that aborts when any of `signals` does, or about `ms` from now with the reason
 * `AbortSignal.timeout` gives (a `TimeoutError` DOMException).
 *
 * Not `AbortSignal.any([...signals, AbortSignal.timeout(ms)])`: Node 20's `AbortSignal.any`
 * holds its sources weakly, and the timer of `AbortSignal.timeout` holds its signal weakly too,
 * so a garbage collection before the time is up takes the timeout away and the combined signal
 * never aborts (a reliability run went on past its 5 minutes; `timeout-signal.test.ts` forces
 * the collection). Nor a timer and a controller of its own per call: nothing tells a bound
 * that its call has ended, so each would stay for its whole time, and a sidecar answering a
 * hundred requests a second under a 60 s bound held megabytes of them (seen as heap growth in
 * the malformed-requests reliability run; an abort listener on the combined signal to clear the
 * timer made it worse, since Node keeps a signal with listeners alive until it aborts).
 *
 * So bounds share deadlines: every bound ending in the same slot (a twentieth of its time, at
 * most 250 ms) is aborted by one controller, kept by one timer, and a call holds nothing of its
 * own but the combined signal, collected when the call lets it go. A bound fires up to one slot
 * late, never early. Isomorphic: the typed client uses it.
 */

/** The longest slot: how late a bound may fire at most. */
const MAX_SLOT_MS = 250;

/** Controllers by the deadline (ms since the epoch) they abort at. */
const deadlines = new Map<number, AbortController>();

export function anySignalWithTimeout(signals: readonly AbortSignal[], ms: number): AbortSignal {
  return AbortSignal.any([...signals, deadline(ms)]);
}

/** The shared signal that aborts at the end of the slot `ms` from now falls in. */
function deadline(ms: number): AbortSignal {
  const slot = Math.min(MAX_SLOT_MS, Math.max(1, Math.floor(ms / 20)));
  const at = Math.ceil((Date.now() + ms) / slot) * slot;
  const known = deadlines.get(at);
  if (known !== undefined) return known.signal;
  const controller = new AbortController();
  deadlines.set(at, controller);
  // The timer holds the controller until it fires, whatever is collected meanwhile.
  const timer = setTimeout(() => {
    deadlines.delete(at);
    controller.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError"));
  }, at - Date.now());
  // Like AbortSignal.timeout's: a bound still running does not keep a Node process alive.
  if (typeof timer === "object" && typeof timer.unref === "function") timer.unref();
  return controller.signal;
}
