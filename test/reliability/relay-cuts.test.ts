/**
 * The reliability suite's relay-cuts scenario, short variant (`npm run reliability -- --only
 * relay-cuts` runs 10 turns and 50 cuts): a real sidecar reachable through a relay, a paired
 * device following a session through it while 3 turns (or more, until the cuts are made) run,
 * the connections device↔relay and relay↔sidecar cut 10 times from the suite's fixed seed: every durable event once, in order,
 * every turn ended once, no process left.
 */
import { afterAll, expect, it } from "vitest";
import { RELAY_CUTS, relayCutsScenario } from "../../bench/reliability/scenarios/relay-cuts.js";
import { createSuiteFiles, scenarioContext } from "../../bench/reliability/suite-files.js";

const suite = createSuiteFiles();
afterAll(() => suite.remove());

/** The notes that are figures, not findings. */
const FIGURES = /^(seed |device socket errors |processes started )/;

it(`cuts either side of the relay ${RELAY_CUTS.short.cuts} times over ${RELAY_CUTS.short.turns} turns: every durable event once, in order`, async () => {
  const context = scenarioContext(suite, relayCutsScenario.name, { short: true, seed: 17 });
  const row = await relayCutsScenario.run(context);
  const findings = row.notes.filter((note) => !FIGURES.test(note));
  expect(findings, row.notes.join("\n")).toEqual([]);
  // At least the variant's turns, more while cuts were still to be made (the scenario's rule).
  const { once, started } = row.turnsEndedOnce ?? { once: 0, started: 0 };
  expect(started).toBeGreaterThanOrEqual(RELAY_CUTS.short.turns);
  expect(once).toBe(started);
  expect(row).toMatchObject({
    faultsInjected: RELAY_CUTS.short.cuts,
    durableLost: 0,
    duplicated: 0,
    leakedProcesses: 0,
    passed: true,
  });
}, 240_000);
