/**
 * The reliability suite's upstream-cuts scenario, short variant (`npm run reliability -- --only
 * upstream-cuts` runs the full 100 cuts): the real `opencode` and the scripted model behind a
 * cutting proxy, 10 cuts of the live and durable streams (mid-frame too) during one turn, from
 * the suite's fixed seed: nothing lost or stored twice, the text exact, the turn ended once.
 */
import { afterAll, expect, it } from "vitest";
import { upstreamCutsScenario } from "../../bench/reliability/scenarios/upstream-cuts.js";
import { createSuiteFiles, scenarioContext } from "../../bench/reliability/suite-files.js";

const suite = createSuiteFiles();
afterAll(() => suite.remove());

/** The notes that are figures, not findings. */
const FIGURES = /^(seed |native log |processes started )/;

it("cuts the upstream streams 10 times during one turn: nothing lost or twice, text exact", async () => {
  const context = scenarioContext(suite, "upstream-cuts", { short: true, seed: 17 });
  const row = await upstreamCutsScenario.run(context);
  const findings = row.notes.filter((note) => !FIGURES.test(note));
  expect(findings, row.notes.join("\n")).toEqual([]);
  expect(row).toMatchObject({
    faultsInjected: 10,
    turnsEndedOnce: { once: 1, started: 1 },
    durableLost: 0,
    duplicated: 0,
    leakedProcesses: 0,
    passed: true,
  });
});
