/**
 * Turns silence into a clear failure. Two bounds: an input admitted while no step has started
 * yet (a model the server cannot reach fails exactly like this: admitted, then nothing,
 * forever — seed 001), and a step that has started but has gone silent.
 */

export interface WatchdogBounds {
  /** Admitted input, no step started (default 60 s). */
  admitTimeoutMs: number;
  /** A running step with no event at all (default 120 s). */
  silenceTimeoutMs: number;
}

export const DEFAULT_WATCHDOG: WatchdogBounds = {
  admitTimeoutMs: 60_000,
  silenceTimeoutMs: 120_000,
};

export type Stall = { kind: "no-step" | "silent-step"; afterMs: number; hint: string };

export class Watchdog {
  readonly #bounds: WatchdogBounds;
  readonly #onStall: (stall: Stall) => void;
  #timer: NodeJS.Timeout | undefined;
  /** The bound `#timer` runs for. */
  #kind: Stall["kind"] | undefined;

  constructor(bounds: WatchdogBounds, onStall: (stall: Stall) => void) {
    this.#bounds = bounds;
    this.#onStall = onStall;
  }

  /** Re-arms for the phase the turn is in now, or stops when nothing is waiting. */
  update(phase: "idle" | "waiting-for-step" | "in-step"): void {
    const kind =
      phase === "idle" ? undefined : phase === "waiting-for-step" ? "no-step" : "silent-step";
    if (kind !== undefined && kind === this.#kind && this.#timer !== undefined) {
      // The same bound again (every event of a running step comes here): the timer starts
      // over, rather than a new one being made per event.
      this.#timer.refresh();
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#kind = kind;
    if (kind === undefined) return;
    const afterMs =
      kind === "no-step" ? this.#bounds.admitTimeoutMs : this.#bounds.silenceTimeoutMs;
    this.#timer = setTimeout(
      () => this.#onStall({ kind, afterMs, hint: hintFor(kind, afterMs) }),
      afterMs,
    );
    this.#timer.unref();
  }

  stop(): void {
    this.update("idle");
  }
}

function hintFor(kind: Stall["kind"], afterMs: number): string {
  const seconds = Math.round(afterMs / 1000);
  return kind === "no-step"
    ? `the input was admitted but no step started within ${seconds} s: the model did not answer. ` +
        "It may be unavailable to the server (no connected credential, or a provider the /api " +
        'catalog does not list: the server log then says "Model unavailable"), or its provider ' +
        "is not answering"
    : `the model produced nothing for ${seconds} s: it may be hanging, or its provider unreachable`;
}
