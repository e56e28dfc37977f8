/**
 * Reconnect delays: capped exponential backoff with full-range jitter around each step, so a
 * hundred clients cut by one sidecar restart do not all come back in the same millisecond.
 * (The library's own `Backoff` lives in a Node layer this isomorphic client does not import.)
 */
export interface ReconnectBackoff {
  /** Delay before the first retry. Default 250 ms. */
  initialMs?: number;
  /** Upper bound of every delay, jitter included. Default 10 000 ms. */
  maxMs?: number;
  /** Spread as a fraction of the delay: 0.5 draws from ±50 %. Default 0.5. */
  jitter?: number;
  /** Source of randomness in [0, 1); injectable for tests. */
  random?: () => number;
}

export class Backoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #jitter: number;
  readonly #random: () => number;
  #attempt = 0;

  constructor(options: ReconnectBackoff = {}) {
    this.#initialMs = Math.max(0, options.initialMs ?? 250);
    this.#maxMs = Math.max(this.#initialMs, options.maxMs ?? 10_000);
    this.#jitter = Math.min(1, Math.max(0, options.jitter ?? 0.5));
    this.#random = options.random ?? Math.random;
  }

  /** Failed attempts in a row since the last `reset()`. */
  get attempt(): number {
    return this.#attempt;
  }

  /** The next delay; each call doubles the following one, up to `maxMs`. */
  next(): number {
    const base = Math.min(this.#maxMs, this.#initialMs * 2 ** this.#attempt);
    this.#attempt += 1;
    const spread = base * this.#jitter * (2 * this.#random() - 1);
    return Math.min(this.#maxMs, Math.max(0, Math.round(base + spread)));
  }

  reset(): void {
    this.#attempt = 0;
  }
}
