/**
 * The sidecar's in-memory state that a client can make grow (tickets, idempotency keys): an
 * `lru-cache` whose entries expire after a ttl and whose size is bounded, the oldest dropped
 * first. Read with `peek`, which leaves an entry's place alone, so the order of eviction is the
 * order of setting (a replayed key does not outlive newer ones).
 */
import { LRUCache } from "lru-cache";

/** The bound and the ttl; `now` (ms since the epoch) for tests. */
export interface BoundedTtl {
  ttlMs: number;
  max: number;
  now?: () => number;
}

/** The cache, and the expiry (ms since the epoch) of an entry set now. */
export function boundedTtlCache<V extends {}>(
  options: BoundedTtl,
): { cache: LRUCache<string, V>; expiresAt: () => number } {
  const now = options.now ?? Date.now;
  const cache = new LRUCache<string, V>({
    max: options.max,
    // lru-cache keeps an entry while `now - set <= ttl`; an entry here is gone at `set + ttlMs`
    // (whole milliseconds; at least 1, as a ttl of 0 would mean none).
    ttl: Math.max(1, options.ttlMs - 1),
    // Read the clock at every call: the default caches it for 1 ms of real time.
    ttlResolution: 0,
    perf: { now },
  });
  return { cache, expiresAt: () => now() + options.ttlMs };
}
