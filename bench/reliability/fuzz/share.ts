/**
 * One worker's part of the fuzz. Batch `i` of share `k` of `n` is seeded `seed + i·n + k`: the
 * shares draw distinct batches, and a run repeats from its seed and its number of shares. A
 * failing batch is reported with its seed, which replays it alone.
 */
export interface Share {
  index: number;
  of: number;
}

/** The whole fuzz in one share: batch `i` seeded `seed + i`. */
export const WHOLE: Share = { index: 0, of: 1 };

export function batchSeed(seed: number, batch: number, share: Share): number {
  return seed + batch * share.of + share.index;
}
