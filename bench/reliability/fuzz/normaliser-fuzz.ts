/**
 * The normaliser half of the fuzz: cases of mutated wire texts through every surface's read
 * path, in batches of fast-check runs from one seed, until the mutated-frame target is reached.
 */
import fc from "fast-check";
import { bySurface, caseArbitrary, type FuzzCase, textsOf } from "./cases.js";
import type { FrameProblem } from "./checks.js";
import { PIPELINES } from "./pipelines.js";
import type { SeedSequence } from "./seed-frames.js";
import { batchSeed, type Share, WHOLE } from "./share.js";
import type { FuzzTally } from "./tally.js";

const RUNS_PER_BATCH = 1_000;

/** Feeds one case; the problems of its frames (a throw out of the read path is a crash). */
export function runCase(
  fuzzCase: FuzzCase,
  sequences: ReturnType<typeof bySurface>,
  tally: FuzzTally,
): FrameProblem[] {
  const { texts, mutated } = textsOf(fuzzCase, sequences);
  const pipeline = PIPELINES[fuzzCase.surface];
  const reader = pipeline.open();
  const problems: FrameProblem[] = [];
  try {
    problems.push(...reader.begin());
    for (const text of texts) {
      const value = pipeline.decode(text);
      if (value !== undefined) problems.push(...reader.frame(value));
    }
    problems.push(...reader.end());
  } catch (error) {
    problems.push({
      kind: "crash",
      detail: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
  }
  tally.addCase(fuzzCase.surface, texts.length, mutated, reader.events);
  tally.addProblems(problems, fuzzCase.surface);
  return problems;
}

export interface BatchFailure {
  seed: number;
  counterexample: string;
}

/**
 * Batches of `RUNS_PER_BATCH` cases, batch `i` seeded `seed + i` (in one share, see share.ts), until `tally.mutated` reaches
 * `target`; stops at the first failing case (fast-check shrinks it: the counterexample).
 */
export function fuzzNormalisers(
  sequences: readonly SeedSequence[],
  seed: number,
  target: number,
  tally: FuzzTally,
  afterBatch: () => void = () => {},
  share: Share = WHOLE,
): BatchFailure | undefined {
  const grouped = bySurface(sequences);
  const property = fc.property(caseArbitrary(), (fuzzCase) => {
    const problems = runCase(fuzzCase, grouped, tally);
    if (problems.length > 0) tally.freeze();
    return problems.length === 0;
  });
  for (let batch = 0; tally.mutated < target; batch++) {
    const seedOfBatch = batchSeed(seed, batch, share);
    const runs = Math.min(RUNS_PER_BATCH, Math.max(1, Math.ceil((target - tally.mutated) / 4)));
    const result = fc.check(property, { seed: seedOfBatch, numRuns: runs });
    afterBatch();
    if (result.failed) {
      return { seed: seedOfBatch, counterexample: summarize(result.counterexample?.[0]) };
    }
  }
  return undefined;
}

/** A counterexample, its huge strings cut (one can be a mebibyte). */
export function summarize(value: unknown): string {
  return (
    JSON.stringify(value, (_key, item: unknown) =>
      typeof item === "string" && item.length > 80
        ? `${item.slice(0, 40)}…(${item.length} chars)`
        : item,
    ) ?? "undefined"
  );
}
