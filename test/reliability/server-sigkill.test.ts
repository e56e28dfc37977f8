/**
 * The reliability suite's server-sigkill scenario, short variant (`npm run reliability -- --only
 * server-sigkill` runs 5 sessions for 5 minutes): the managed `opencode serve` SIGKILLed every
 * 2–6 s (from the suite's fixed seed) while 2 sessions run turns back to back: every turn ends
 * exactly once, every send works, the next turn after the last kill completes, nothing is left.
 */
import { afterAll, expect, it } from "vitest";
import { serverSigkillScenario } from "../../bench/reliability/scenarios/server-sigkill.js";
import { createSuiteFiles, scenarioContext } from "../../bench/reliability/suite-files.js";

const suite = createSuiteFiles();
afterAll(() => suite.remove());

it("SIGKILLs the managed server under 2 sessions: every turn ends once, every send works", async () => {
  const context = scenarioContext(suite, "server-sigkill", { short: true, seed: 17 });
  const row = await serverSigkillScenario.run(context);
  // The notes name the failed sends and turns; a failure prints them.
  expect(row, row.notes.join("\n")).toMatchObject({ leakedProcesses: 0, passed: true });
  expect(row.faultsInjected).toBeGreaterThanOrEqual(2);
  expect(row.turnsEndedOnce?.once).toBe(row.turnsEndedOnce?.started);
});
