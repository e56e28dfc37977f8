/**
 * The reliability suite's controls scenario, short variant (`npm run reliability -- --only
 * controls` runs 8 rounds): undo, redo, fork and a slash command on a real `ocb serve` (the
 * real `opencode`, the scripted model) that is SIGKILLed and started again on the same store
 * twice (between an undo and its redo, and in the middle of a turn), its WebSocket clients
 * cut at random, sends and command runs cut mid-request and sent again with their key. Nothing
 * lost or doubled: the clients' lists equal the store's, one event per undo, redo and fork,
 * one admission and one end per turn, no process left.
 */
import { afterAll, expect, it } from "vitest";
import { CONTROLS, controlsScenario } from "../../bench/reliability/scenarios/controls.js";
import { createSuiteFiles, scenarioContext } from "../../bench/reliability/suite-files.js";

const suite = createSuiteFiles();
afterAll(() => suite.remove());

it(`${CONTROLS.short.rounds} rounds of undo, redo, fork and a command across sidecar kills: nothing lost or doubled`, async () => {
  const context = scenarioContext(suite, controlsScenario.name, { short: true, seed: 17 });
  const row = await controlsScenario.run(context);
  expect(
    row.notes.filter((note) => /NO|errors from|refused|ended [02-9] times/.test(note)),
  ).toEqual([]);
  expect(row.passed).toBe(true);
  // The faults were made: both kills, and client cuts beside them.
  expect(row.notes[1]).toMatch(new RegExp(`^${CONTROLS.short.rounds} sidecar kills`));
  expect(row.faultsInjected).toBeGreaterThan(CONTROLS.short.rounds);
  expect(row).toMatchObject({ durableLost: 0, duplicated: 0, crashes: 0, leakedProcesses: 0 });
}, 240_000);
