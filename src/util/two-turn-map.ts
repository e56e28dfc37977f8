/**
 * A map that keeps what was set during the running turn and the turn before only: `turnEnded()`
 * forgets the older turn's entries. For what a session looks up about its tool calls (an ask
 * comes during its call, or after the call's turn ended when the live stream lags, never turns
 * later): a long session keeps two turns' entries, reached at once, instead of filling a fixed
 * bound over hours. Each turn's entries are still bounded (`perTurn`, oldest dropped first).
 */
export class TwoTurnMap<K, V> {
  readonly #perTurn: number;
  #current = new Map<K, V>();
  #earlier = new Map<K, V>();

  constructor(perTurn: number) {
    this.#perTurn = perTurn;
  }

  set(key: K, value: V): void {
    this.#current.set(key, value);
    if (this.#current.size > this.#perTurn) {
      const oldest = this.#current.keys().next();
      if (oldest.done !== true) this.#current.delete(oldest.value);
    }
  }

  has(key: K): boolean {
    return this.#current.has(key) || this.#earlier.has(key);
  }

  get(key: K): V | undefined {
    return this.#current.has(key) ? this.#current.get(key) : this.#earlier.get(key);
  }

  /** A turn ended: the entries of the turn before it are forgotten. */
  turnEnded(): void {
    this.#earlier = this.#current;
    this.#current = new Map();
  }

  get size(): number {
    return this.#current.size + this.#earlier.size;
  }
}
