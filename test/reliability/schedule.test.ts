/**
 * The runner's schedule: `alongside` scenarios start first and run while the others run one
 * after the other, `last` ones start once all have ended, and the rows come back in the
 * suite's order whatever order they ended in.
 */
import { describe, expect, it } from "vitest";
import type { Scenario, Schedule } from "../../bench/reliability/scenario.js";
import { runScheduled } from "../../bench/reliability/schedule.js";

const scenario = (name: string, schedule?: Schedule): Scenario => ({
  name,
  summary: name,
  ...(schedule === undefined ? {} : { schedule }),
  run: async () => ({ load: "", faultsInjected: 0, crashes: 0, passed: true, notes: [] }),
});

describe("the reliability runner's schedule", () => {
  it("starts alongside ones first, runs in-turn ones one at a time, the last ones after all", async () => {
    const entries = [
      scenario("a"),
      scenario("b"),
      scenario("soak", "alongside"),
      scenario("scan", "last"),
    ];
    const log: string[] = [];
    let running = 0;
    let soakEnded = () => {};
    const soakDone = new Promise<void>((resolve) => {
      soakEnded = resolve;
    });
    const results = await runScheduled(entries, async (entry) => {
      log.push(`start ${entry.name}`);
      running++;
      if (entry.name === "soak") {
        await soakDone;
      } else {
        if (entry.name !== "scan") expect(running).toBe(2); // itself and the soak, no other
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (entry.name === "b") soakEnded();
      }
      running--;
      log.push(`end ${entry.name}`);
      return entry.name;
    });
    expect(results).toEqual(["a", "b", "soak", "scan"]);
    expect(log).toEqual([
      "start soak",
      "start a",
      "end a",
      "start b",
      "end b",
      "end soak",
      "start scan",
      "end scan",
    ]);
  });
});
