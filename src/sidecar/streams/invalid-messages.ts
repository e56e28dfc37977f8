/** Counts a socket's invalid messages over a sliding window, to close one that keeps sending them. */
export class InvalidMessages {
  readonly #max: number;
  readonly #windowMs: number;
  /** When the invalid messages still inside the window came, oldest first. */
  readonly #times: number[] = [];

  constructor(max: number, windowMs: number) {
    this.#max = max;
    this.#windowMs = windowMs;
  }

  /** Counts one at `now`; true when there have been more than `max` within the window. */
  add(now: number): boolean {
    this.#times.push(now);
    while ((this.#times[0] ?? now) <= now - this.#windowMs) this.#times.shift();
    return this.#times.length > this.#max;
  }
}
