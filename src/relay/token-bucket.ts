/**
 * A token bucket of bytes: `rate` per second, up to `burst` saved. `take` always takes (the
 * frame has arrived already) and answers how long the sender should pause for the bucket to be
 * back at zero, so that the rate holds on average without dropping anything.
 */
export class TokenBucket {
  #tokens: number;
  #at: number;

  constructor(
    private readonly rate: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#tokens = burst;
    this.#at = now();
  }

  /** Takes `bytes`; returns the pause in ms before the next frame, 0 while within the rate. */
  take(bytes: number): number {
    const now = this.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#at) * this.rate) / 1000);
    this.#at = now;
    this.#tokens -= bytes;
    return this.#tokens >= 0 ? 0 : Math.ceil((-this.#tokens * 1000) / this.rate);
  }
}
