/**
 * The answer of a check that costs a call elsewhere, reused for a while: callers within `ttlMs`
 * of the last answer get it again, and callers while a call is out share that call. A failed
 * call is not kept. (`/healthz` asks OpenCode through it, so a flood of checks asks once.)
 */
export class RecentAnswer<T> {
  readonly #ask: () => Promise<T>;
  readonly #ttlMs: number;
  readonly #now: () => number;
  #answer: { value: T; at: number } | undefined;
  #pending: Promise<T> | undefined;

  constructor(ask: () => Promise<T>, ttlMs: number, now: () => number = Date.now) {
    this.#ask = ask;
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  get(): Promise<T> {
    const answer = this.#answer;
    if (answer !== undefined && this.#now() - answer.at < this.#ttlMs) {
      return Promise.resolve(answer.value);
    }
    this.#pending ??= this.#ask()
      .then((value) => {
        this.#answer = { value, at: this.#now() };
        return value;
      })
      .finally(() => {
        this.#pending = undefined;
      });
    return this.#pending;
  }
}
