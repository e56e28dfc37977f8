/**
 * The reliability suite's soak, short variant (`npm run reliability -- --only soak` runs 10
 * sessions for 10 minutes): 2 sessions running turns back to back for 20 s on a real bridge
 * in a child process, its slopes flat by the short variant's bound, fds and handles back after
 * the close, every turn ended once, nothing left running. And the slope it judges by is a
 * least-squares fit that sees a leak and ignores the warm-up.
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
    // A warm-up climb, then flat: flat.
    const warm = [
      sample(0, 10),
      sample(30_000, 20),
      ...[60, 120, 180, 240].map((s) => sample(s * 1000, 20)),
    ];
    expect(soakFigures(warm, undefined, limits)).toMatchObject({ flat: true, heapSlope: 0 });
    // 1 MiB a minute after the warm-up: not flat.
    const leak = [60, 120, 180, 240].map((s, i) => sample(s * 1000, 20 + i));
    const figures = soakFigures(leak, undefined, limits);
    expect(figures.heapSlope).toBeCloseTo(1024);
    expect(figures.flat).toBe(false);
    expect(figures.fdsBack).toBe(false); // no end report: nothing is back
  });
});
