/**
 * A map whose entries expire after a ttl and whose size is bounded (the oldest go first): the
 * sidecar's in-memory state that a client can make grow (tickets, idempotency keys).
 */
export class ExpiringMap<V> {
  /** Oldest first: insertion order is expiry order, as every entry has the same ttl. */
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: { ttlMs: number; max: number; now?: () => number }) {
    this.#ttlMs = options.ttlMs;
    this.#max = options.max;
    this.#now = options.now ?? Date.now;
  }

  /** Keeps `value` under `key` for the ttl; returns its expiry (ms since the epoch). */
  set(key: string, value: V): number {
    this.#prune();
    this.#entries.delete(key);
    const expiresAt = this.#now() + this.#ttlMs;
    this.#entries.set(key, { value, expiresAt });
    while (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
    return expiresAt;
  }

  /** The value under `key`, unless it expired or was dropped. */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > this.#now()) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  delete(key: string): boolean {
    return this.#entries.delete(key);
  }

  get size(): number {
    this.#prune();
    return this.#entries.size;
  }

  #prune(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt > now) break; // oldest first: the rest are valid
      this.#entries.delete(key);
    }
  }
}
