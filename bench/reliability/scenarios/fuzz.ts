/**
 * Fuzzing: mutated recorded native frames (fields deleted, types changed, values out of range,
 * truncated JSON, huge strings, unknown types) through every normaliser's read path and, as
 * event streams split at random points with malformed lines, through the SSE reader. Must
 * hold: no uncaught exception, every canonical event valid against its zod schema, every frame
 * of an unknown type kept as `native.unknown`, every streamed frame read once, in order.
 */

import { availableParallelism } from "node:os";
import type { FrameProblem } from "../fuzz/checks.js";
import { runFuzzOnWorkers } from "../fuzz/fuzz-workers.js";
import { type FuzzHalf, type FuzzResult, fuzzPassed } from "../fuzz/run-fuzz.js";
import type { Scenario, ScenarioContext, ScenarioRow } from "../scenario.js";

/** The full run's mutated frames (the "at least 1,000,000"); the short variant's. */
export const FUZZ_FRAMES = { full: 1_000_000, short: 20_000 } as const;
/** A tenth go through the SSE reader: it is slower per frame (a stream each case). */
export const SSE_SHARE = 0.1;

/** A worker thread per core: the fuzz runs when nothing else of the suite does. */
export function fuzzWorkers(): number {
  return Math.max(1, availableParallelism());
}

const thousands = (value: number): string => Math.round(value).toLocaleString("en-US");

function rate(half: FuzzHalf): string {
  return `${thousands(half.tally.mutated / half.seconds)} frames/s`;
}

function problemNotes(name: string, half: FuzzHalf): string[] {
  const kinds = [...half.tally.problems].map(
    ([kind, record]) => `${name} ${kind} ×${record.count} (first: ${record.first.slice(0, 300)})`,
  );
  const failure = half.failure;
  return failure === undefined
    ? kinds
    : [
        ...kinds,
        `${name} counterexample (batch seed ${failure.seed}): ${failure.counterexample.slice(0, 600)}`,
      ];
}

/** The fuzz's figures as a row of the suite's table. */
export function fuzzRow(result: FuzzResult): Omit<ScenarioRow, "scenario" | "peakRssBytes"> {
  const { normalisers, sse } = result;
  const count = (kind: FrameProblem["kind"]) =>
    normalisers.tally.count(kind) + sse.tally.count(kind);
  const mutated = normalisers.tally.mutated + sse.tally.mutated;
  const bySurface = [...normalisers.tally.mutatedBySurface]
    .map(([surface, frames]) => `${surface} ${thousands(frames)}`)
    .join(", ");
  return {
    load: `${thousands(mutated)} mutated frames (${thousands(sse.tally.mutated)} as SSE streams)`,
    faultsInjected: mutated,
    durableLost: count("not-kept") + sse.tally.lost,
    duplicated: sse.tally.duplicated,
    crashes: count("crash"),
    passed: fuzzPassed(result),
    notes: [
      result.shares === 1
        ? `seed ${result.seed}`
        : `seed ${result.seed} (${result.shares} worker threads: batch i of worker k seeded seed + ${result.shares}i + k)`,
      `normalisers ${thousands(normalisers.tally.mutated)} mutated of ${thousands(normalisers.tally.frames)} frames fed (${bySurface}), ${rate(normalisers)}`,
      `SSE ${thousands(sse.tally.mutated)} mutated of ${thousands(sse.tally.frames)} frames, ${rate(sse)}`,
      `${thousands(normalisers.tally.events + sse.tally.events)} canonical events, ${count("invalid-event")} invalid`,
      `${count("normaliser-threw")} normaliser throws on schema-valid frames`,
      ...problemNotes("normalisers", normalisers),
      ...problemNotes("SSE", sse),
    ],
  };
}

export const fuzzScenario: Scenario = {
  name: "fuzz",
  summary:
    "mutated recorded frames through every normaliser and the SSE reader: no exception, " +
    "valid events, unknown input kept as native.unknown",
  async run(context: ScenarioContext) {
    const frames = context.short ? FUZZ_FRAMES.short : FUZZ_FRAMES.full;
    const workers = fuzzWorkers();
    context.note(
      `fuzz: ${thousands(frames)} mutated frames, seed ${context.seed}, ${workers} workers`,
    );
    const nextReport = { normalisers: 100_000, sse: 100_000 };
    const result = await runFuzzOnWorkers({
      mutatedFrames: frames,
      sseShare: SSE_SHARE,
      seed: context.seed,
      workers,
      afterBatch: (half, mutated) => {
        context.sampleRss();
        if (mutated >= nextReport[half]) {
          context.note(`fuzz ${half}: ${thousands(mutated)} mutated frames`);
          nextReport[half] += 100_000;
        }
      },
    });
    return fuzzRow(result);
  },
};
