/**
 * The reliability suite's fuzz scenario, short variant (`npm run reliability -- --only fuzz`
 * runs the full 1,000,000 frames): 20,000 mutated recorded frames through every normaliser's
 * read path and the SSE reader, from the suite's fixed seed. And the checks it relies on are
 * not vacuous: they flag what they are there to flag.
 */
import { describe, expect, it } from "vitest";
import { problemsOf } from "../../bench/reliability/fuzz/checks.js";
import { runFuzzOnWorkers } from "../../bench/reliability/fuzz/fuzz-workers.js";
import { fuzzPassed, runFuzz } from "../../bench/reliability/fuzz/run-fuzz.js";
import type { FuzzTally } from "../../bench/reliability/fuzz/tally.js";
import { FUZZ_FRAMES, fuzzRow, SSE_SHARE } from "../../bench/reliability/scenarios/fuzz.js";
import type { CanonicalEvent } from "../../src/events/canonical.js";

const SEED = 17;

describe("reliability: fuzzing the normalisers and the SSE reader (short variant)", () => {
  it(`feeds ${FUZZ_FRAMES.short.toLocaleString("en-US")} mutated frames: no exception, valid events, nothing dropped`, async () => {
    const result = await runFuzzOnWorkers({
      mutatedFrames: FUZZ_FRAMES.short,
      sseShare: SSE_SHARE,
      seed: SEED,
      workers: 2,
    });
    const row = fuzzRow(result);
    // The notes name the first problem of each kind and the shrunk counterexample.
    expect(row.notes.filter((note) => /first:|counterexample/.test(note))).toEqual([]);
    expect(fuzzPassed(result)).toBe(true);
    expect(row.faultsInjected).toBeGreaterThanOrEqual(FUZZ_FRAMES.short);
    expect(result.sse.tally.mutated).toBeGreaterThan(0);
    expect([...result.normalisers.tally.mutatedBySurface.keys()].sort()).toEqual([
      "api",
      "legacy",
      "run",
      "v2",
    ]);
  });

  it("in worker threads, runs the shares one thread would run, and adds their counts up", async () => {
    const options = { mutatedFrames: 4_000, sseShare: SSE_SHARE, seed: SEED };
    const onWorkers = await runFuzzOnWorkers({ ...options, workers: 2 });
    const shares = [
      await runFuzz({ ...options, share: { index: 0, of: 2 } }),
      await runFuzz({ ...options, share: { index: 1, of: 2 } }),
    ];
    for (const half of ["normalisers", "sse"] as const) {
      const counted = (pick: (tally: FuzzTally) => number) =>
        shares.reduce((sum, share) => sum + pick(share[half].tally), 0);
      const tally = onWorkers[half].tally;
      expect(tally.mutated).toBe(counted((each) => each.mutated));
      expect(tally.frames).toBe(counted((each) => each.frames));
      expect(tally.events).toBe(counted((each) => each.events));
    }
    // The two shares drew different cases: their tallies differ.
    expect(shares[0]?.normalisers.tally.frames).not.toBe(shares[1]?.normalisers.tally.frames);
    expect(onWorkers.shares).toBe(2);
  });

  it("flags an event invalid against the canonical schema, and an unknown frame not kept", () => {
    const invalid = {
      id: "e#0",
      sessionId: "ses_1",
      at: Number.POSITIVE_INFINITY,
      type: "file.edited",
      data: { file: "a" },
      durable: true,
    } as CanonicalEvent;
    const unknown = { known: false, event: { type: "future.event" } } as const;
    expect(problemsOf(unknown, [invalid]).map((problem) => problem.kind)).toEqual([
      "invalid-event",
      "not-kept",
    ]);
  });
});
