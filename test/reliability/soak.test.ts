/**
 * The reliability suite's soak, short variant (`npm run reliability -- --only soak` runs 10
 * sessions for 10 minutes): 2 sessions running turns back to back for 20 s on a real bridge
 * in a child process, its slopes flat by the short variant's bound, fds and handles back after
 * the close, every turn ended once, nothing left running. And the slope it judges by is a
 * least-squares fit of the bridge's objects (the heap less V8's compiled code) that sees a
 * leak and ignores the warm-up.
 */
import { describe, expect, it } from "vitest";
import { SOAK_LOAD, soakScenario } from "../../bench/reliability/scenarios/soak.js";
import type { SoakSample } from "../../bench/reliability/soak/reports.js";
import { leastSquaresSlope } from "../../bench/reliability/soak/slope.js";
import { SLOPE_LIMITS, soakFigures } from "../../bench/reliability/soak/verdict.js";
import { createSuiteFiles, scenarioContext } from "../../bench/reliability/suite-files.js";

const sample = (atMs: number, heapMiB: number): SoakSample => ({
  kind: "sample",
  atMs,
  rssBytes: 100 * 1024 * 1024 + heapMiB * 1024 * 1024,
  heapBytes: heapMiB * 1024 * 1024,
  codeBytes: 2 * 1024 * 1024,
  heapTotalBytes: 40 * 1024 * 1024,
  anonBytes: 60 * 1024 * 1024,
  fds: 30,
  turns: 0,
});

describe("reliability: soak (short variant)", () => {
  it(`runs ${SOAK_LOAD.short.sessions} sessions for ${SOAK_LOAD.short.durationMs / 1000} s: flat, fds and handles back, every turn once`, async () => {
    const suite = createSuiteFiles();
    try {
      const context = scenarioContext(suite, "soak", { short: true, seed: 17 });
      const row = await soakScenario.run(context);
      expect(row.notes.join("; ")).not.toMatch(/first errors|left running|stray|without its end/);
      expect(row.turnsEndedOnce?.started).toBeGreaterThan(0);
      expect(row.turnsEndedOnce?.once).toBe(row.turnsEndedOnce?.started);
      expect(row).toMatchObject({ durableLost: 0, duplicated: 0, crashes: 0, leakedProcesses: 0 });
      expect(row.peakRssBytes).toBeGreaterThan(0); // the child's, not the test's
      expect(suite.secrets.size).toBe(2); // its API key and server password, for the scan
      expect(row.passed).toBe(true);
    } finally {
      suite.remove();
    }
  }, 120_000);

  it("fits the slope by least squares, after the warm-up only", () => {
    expect(
      leastSquaresSlope([
        { x: 0, y: 1 },
        { x: 1, y: 3 },
        { x: 2, y: 5 },
      ]),
    ).toBe(2);
    const limits = SLOPE_LIMITS.full;
    const after = [0, 60, 120, 180].map((s) => limits.warmUpMs + s * 1000);
    // A warm-up climb, then flat: flat.
    const warm = [
      sample(0, 10),
      sample(limits.warmUpMs / 2, 20),
      ...after.map((at) => sample(at, 20)),
    ];
    expect(soakFigures(warm, undefined, limits)).toMatchObject({ flat: true, heapSlope: 0 });
    // 1 MiB a minute after the warm-up: not flat.
    const leak = after.map((at, i) => sample(at, 20 + i));
    const figures = soakFigures(leak, undefined, limits);
    expect(figures.heapSlope).toBeCloseTo(1024);
    expect(figures.flat).toBe(false);
    expect(figures.fdsBack).toBe(false); // no end report: nothing is back
  });

  it("judges the bridge's objects, not V8's compiled code, and reports the code's slope", () => {
    const limits = SLOPE_LIMITS.full;
    // V8 compiles 1 MiB a minute, and that is all the heap grows by: flat.
    const compiling = [0, 60, 120, 180].map((s, i) => ({
      ...sample(limits.warmUpMs + s * 1000, 20 + i),
      codeBytes: (2 + i) * 1024 * 1024,
      rssBytes: 200 * 1024 * 1024, // RSS is judged on its own bar: kept flat here
    }));
    const figures = soakFigures(compiling, undefined, limits);
    expect(figures.heapSlope).toBeCloseTo(0);
    expect(figures.codeSlope).toBeCloseTo(1024);
    expect(figures.flat).toBe(true);
    // The objects grow 1 MiB a minute beside the same code: not flat.
    const leaking = compiling.map((s, i) => ({ ...s, heapBytes: s.heapBytes + i * 1024 * 1024 }));
    expect(soakFigures(leaking, undefined, limits).flat).toBe(false);
  });

  it("judges a long run's last 10 minutes: growth that levels off passes, growth that goes on fails", () => {
    const limits = SLOPE_LIMITS.full;
    const KiB = 1024;
    // 33 minutes sampled every 5 s, the objects given in KiB at each minute t.
    const run = (objectsKiB: (t: number) => number) =>
      Array.from({ length: (33 * 60) / 5 + 1 }, (_, i) => {
        const t = (i * 5) / 60;
        return {
          ...sample(i * 5_000, 20),
          heapBytes: (20 * 1024 + objectsKiB(t)) * KiB + 2 * 1024 * KiB,
        };
      }).map((s) => ({ ...s, rssBytes: 100 * 1024 * KiB + s.heapBytes }));
    // V8 compiling: 2 MiB that comes in ever slower (a time constant of 5 minutes), 4 KiB/min
    // by minute 23 and less after; far over the bar in the first third.
    const levelling = (t: number) => 2048 * (1 - Math.exp(-t / 5));
    const settles = soakFigures(run(levelling), undefined, limits);
    expect(settles.judged.fromMs).toBe(23 * 60_000);
    expect(settles.thirds.objects[0]).toBeGreaterThan(limits.heapKiBPerMinute);
    expect(settles.heapSlope).toBeLessThan(limits.heapKiBPerMinute);
    expect(settles.flat).toBe(true);
    // The same, and 32 KiB a minute kept besides: as steep at the end as at the start.
    const leaking = soakFigures(
      run((t) => levelling(t) + 32 * t),
      undefined,
      limits,
    );
    expect(leaking.heapSlope).toBeGreaterThan(limits.heapKiBPerMinute);
    expect(leaking.flat).toBe(false);
    // The default run (13 minutes) judges its whole 10 minutes measured, as before.
    const short = soakFigures(
      run(levelling).filter((s) => s.atMs <= 13 * 60_000),
      undefined,
      limits,
    );
    expect(short.judged.fromMs).toBe(limits.warmUpMs);
    expect(short.flat).toBe(false);
  });
});
