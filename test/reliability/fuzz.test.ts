/**
 * The reliability suite's fuzz scenario, short variant (`npm run reliability -- --only fuzz`
 * runs the full 1,000,000 frames): 20,000 mutated recorded frames through every normaliser's
 * read path and the SSE reader, from the suite's fixed seed. And the checks it relies on are
 * not vacuous: they flag what they are there to flag.
 */
import { describe, expect, it } from "vitest";
import { problemsOf } from "../../bench/reliability/fuzz/checks.js";
import { fuzzPassed, runFuzz } from "../../bench/reliability/fuzz/run-fuzz.js";
import { FUZZ_FRAMES, fuzzRow, SSE_SHARE } from "../../bench/reliability/scenarios/fuzz.js";
import type { CanonicalEvent } from "../../src/events/canonical.js";

const SEED = 17;

describe("reliability: fuzzing the normalisers and the SSE reader (short variant)", () => {
  it(`feeds ${FUZZ_FRAMES.short.toLocaleString("en-US")} mutated frames: no exception, valid events, nothing dropped`, async () => {
    const result = await runFuzz({
      mutatedFrames: FUZZ_FRAMES.short,
      sseShare: SSE_SHARE,
      seed: SEED,
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
