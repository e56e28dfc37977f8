/**
 * The reliability suite's server-sigkill scenario, short variant (`npm run reliability -- --only
 * server-sigkill` runs 5 sessions for 5 minutes): the managed `opencode serve` SIGKILLed twice,
 * 2–6 s after it runs (again), from the suite's fixed seed, while 2 sessions run turns back to
 * back: every turn ends exactly once, every send works, the next turn after the last kill
 * completes, nothing is left. Two kills, however long the restarts take: it once ran for 16 s,
 * and a clean-clone run's slow restart left room for one.
 */
import { afterAll, expect, it } from "vitest";
import { serverSigkillScenario } from "../../bench/reliability/scenarios/server-sigkill.js";
import { createSuiteFiles, scenarioContext } from "../../bench/reliability/suite-files.js";

const suite = createSuiteFiles();
afterAll(() => suite.remove());

/** The notes that are figures, not findings. */
const FIGURES = /^(seed |turns |first sends |processes started )/;

it("SIGKILLs the managed server under 2 sessions: every turn ends once, every send works", async () => {
  const context = scenarioContext(suite, "server-sigkill", { short: true, seed: 17 });
  const row = await serverSigkillScenario.run(context);
  const findings = row.notes.filter((note) => !FIGURES.test(note));
  expect(findings, row.notes.join("\n")).toEqual([]);
  expect(row.leakedProcesses).toBe(0);
  expect(row.faultsInjected).toBe(2);
  expect(row.passed).toBe(true);
});
