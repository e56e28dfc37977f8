/**
 * The whole fuzz: mutated recorded frames through every normaliser's read path, and a share
 * of them as event streams through the SSE reader, from one seed; timed, for frames/s.
 */
import { type BatchFailure, fuzzNormalisers } from "./normaliser-fuzz.js";
import { seedSequences } from "./seed-frames.js";
import { type Share, WHOLE } from "./share.js";
import { fuzzSse } from "./sse-fuzz.js";
import { FuzzTally } from "./tally.js";

export interface FuzzOptions {
  /** Mutated frames in all (both halves). */
  mutatedFrames: number;
  /** The share of them sent as event streams through the SSE reader. */
  sseShare: number;
  seed: number;
  /** Only this share of the run (a worker's, `fuzz-workers.ts`): its part of the frames. */
  share?: Share;
  /** Called between batches (a few hundred cases each) with the half's mutated frames so far. */
  afterBatch?: (half: FuzzHalfName, mutated: number) => void;
}

export type FuzzHalfName = "normalisers" | "sse";

export interface FuzzHalf {
  tally: FuzzTally;
  seconds: number;
  /** The first failing case, shrunk, and the seed of its batch. */
  failure: BatchFailure | undefined;
}

export interface FuzzResult {
  seed: number;
  /** The shares it ran in (worker threads; `share.ts` says how each batch was seeded). */
  shares: number;
  normalisers: FuzzHalf;
  sse: FuzzHalf;
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzResult> {
  const sequences = seedSequences();
  const share = options.share ?? WHOLE;
  const frames = Math.ceil(options.mutatedFrames / share.of);
  const sseTarget = Math.round(frames * options.sseShare);
  const after = options.afterBatch ?? (() => {});

  const normalisers = new FuzzTally();
  let started = performance.now();
  const normaliserFailure = fuzzNormalisers(
    sequences,
    options.seed,
    frames - sseTarget,
    normalisers,
    () => after("normalisers", normalisers.mutated),
    share,
  );
  const normaliserSeconds = (performance.now() - started) / 1000;

  const sse = new FuzzTally();
  started = performance.now();
  // Its own seed range, so that the two halves do not draw the same cases.
  const sseFailure = await fuzzSse(
    sequences,
    options.seed + 1_000_000,
    sseTarget,
    sse,
    () => after("sse", sse.mutated),
    share,
  );
  const sseSeconds = (performance.now() - started) / 1000;

  return {
    seed: options.seed,
    shares: share.of,
    normalisers: { tally: normalisers, seconds: normaliserSeconds, failure: normaliserFailure },
    sse: { tally: sse, seconds: sseSeconds, failure: sseFailure },
  };
}

/** Whether the run met every check: no problem of any kind in either half. */
export function fuzzPassed(result: FuzzResult): boolean {
  return [result.normalisers, result.sse].every(
    (half) => half.failure === undefined && half.tally.problems.size === 0,
  );
}
