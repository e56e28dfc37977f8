/**
 * The reliability suite's bridge-sigkill scenario, short variant (`npm run reliability -- --only
 * bridge-sigkill` runs the full 20 kills): a bridge child SIGKILLed mid-turn 3 times (and one
 * successor as it adopts), each time restarted on the same store: every turn adopted and ended
 * once, the transcript without a gap, no process left, and no secret it used left in its files.
 * And the transcript checks it relies on are not vacuous: they flag what they are there to flag.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkTranscript } from "../../bench/reliability/bridge-sigkill/transcript-check.js";
import {
  BRIDGE_KILLS,
  bridgeSigkillScenario,
} from "../../bench/reliability/scenarios/bridge-sigkill.js";
import { createSuiteFiles, scenarioContext } from "../../bench/reliability/suite-files.js";
import { canonical } from "../../src/events/build.js";
import type {
  CanonicalEvent,
  CanonicalEventOf,
  CanonicalType,
} from "../../src/events/canonical.js";

const suite = createSuiteFiles();
afterAll(() => suite.remove());

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("reliability: the bridge SIGKILLed mid-turn (short variant)", () => {
  it(`adopts each of ${BRIDGE_KILLS.short} killed turns: each ends once, no gap, nothing left running`, async () => {
    const context = scenarioContext(suite, "bridge-sigkill", { short: true, seed: 17 });
    const row = await bridgeSigkillScenario.run(context);
    expect(row.notes.join("\n")).not.toMatch(/stopped early|, [1-9]\d* problems|left running/);
    // The second round's successor is killed too, as it opens the session.
    expect(row.load).toMatch(/3 bridges killed mid-turn \+ 1 while adopting/);
    expect(row.turnsEndedOnce?.started).toBeGreaterThanOrEqual(BRIDGE_KILLS.short + 1);
    expect(row).toMatchObject({
      faultsInjected: BRIDGE_KILLS.short + 1,
      turnsEndedOnce: { once: row.turnsEndedOnce?.started },
      durableLost: 0,
      duplicated: 0,
      crashes: 0,
      leakedProcesses: 0,
      passed: true,
    });
    // The server's password and the provider key it used are in none of its files (the store
    // held the password while the server ran).
    expect(suite.secrets.size).toBeGreaterThanOrEqual(2);
    for (const file of filesUnder(context.workDir)) {
      const bytes = readFileSync(file);
      for (const secret of suite.secrets) expect(bytes.includes(secret), file).toBe(false);
    }
  });
});

/** A stored event of turn `turnId`, numbered `seq`. */
function kept<T extends CanonicalType>(
  seq: number,
  turnId: string,
  type: T,
  data: CanonicalEventOf<T>["data"],
  id = `e${seq}`,
): CanonicalEvent {
  const native = { backend: "serve" as const, type, id };
  return { ...canonical({ sessionId: "ses_1", turnId, at: 1, native }, 0, type, data), id, seq };
}

/** A whole turn from `seq` on: started, its text, ended. */
function turn(seq: number, turnId: string): CanonicalEvent[] {
  return [
    kept(seq, turnId, "turn.started", { inputId: `in_${turnId}` }),
    kept(seq + 1, turnId, "text.ended", { partId: `p_${turnId}`, text: "hi" }),
    kept(seq + 2, turnId, "turn.ended", { outcome: "completed", text: "hi" }),
  ];
}

describe("the bridge-sigkill transcript check", () => {
  it("passes whole turns that match the reference", () => {
    const figures = checkTranscript([...turn(1, "t1"), ...turn(4, "t2")], "hi", "t2");
    expect(figures).toMatchObject({ turnsStarted: 2, endedOnce: 2, lost: 0, duplicated: 0 });
    expect(figures.problems).toEqual([]);
  });

  it("flags a seq gap, an id twice, a turn ended twice and an event missing against the reference", () => {
    const [started, text, end] = turn(1, "t1");
    if (started === undefined || text === undefined || end === undefined)
      throw new Error("no turn");
    const events = [
      started,
      // t1's text.ended is missing, and seq 2 with it
      { ...end, seq: 3 },
      { ...end, seq: 4 }, // the same event (id) kept again: a second turn.ended
      ...turn(5, "t2"),
    ];
    const figures = checkTranscript(events, "hi", "t2");
    expect(figures.endedOnce).toBe(1);
    expect(figures.lost).toBe(2); // seq 2, and t1's text.ended
    expect(figures.duplicated).toBe(2); // id e3 twice, and t1's second turn.ended
    expect(figures.problems).toEqual([
      "seq 2 missing",
      "event id e3 2 times",
      "turn t1 ended 2 times",
      "turn t1: text.ended hi -1",
      "turn t1: turn.ended completed hi +1",
    ]);
  });
});
