/**
 * The reliability suite's long-parts scenario, short variant (`npm run reliability -- --only
 * long-parts` runs 10,000 deltas a part): 100 deltas in a text, a reasoning and a tool-input
 * part on both serve surfaces, every delta before its end and joined to its value.
 */
import { afterAll, expect, it } from "vitest";
import { longPartsScenario } from "../../bench/reliability/scenarios/long-parts.js";
import { createSuiteFiles, scenarioContext } from "../../bench/reliability/suite-files.js";

const suite = createSuiteFiles();
afterAll(() => suite.remove());

it("streams 5 parts of 100 deltas on the two serve surfaces: every delta, before its end", async () => {
  const context = scenarioContext(suite, "long-parts", { short: true, seed: 17 });
  const row = await longPartsScenario.run(context);
  const findings = row.notes.filter((note) => !/^(per part: |processes started )/.test(note));
  expect(findings, row.notes.join("\n")).toEqual([]);
  expect(row).toMatchObject({
    turnsEndedOnce: { once: 5, started: 5 },
    leakedProcesses: 0,
    passed: true,
  });
});
