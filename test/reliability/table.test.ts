/** The reliability suite's table: every scenario of the issue listed, built or not, pass or FAIL. */
import { describe, expect, it } from "vitest";
import { isPlanned, type ScenarioRow } from "../../bench/reliability/scenario.js";
import { SUITE } from "../../bench/reliability/scenarios/index.js";
import { reliabilityTable } from "../../bench/reliability/table.js";

const row = (passed: boolean): ScenarioRow => ({
  scenario: "fuzz",
  load: "3 frames",
  faultsInjected: 3,
  durableLost: passed ? 0 : 1,
  crashes: 0,
  peakRssBytes: 200 * 1024 * 1024,
  passed,
  notes: ["seed 17"],
});

describe("the reliability table", () => {
  it("lists the issue's eight scenarios, long-parts, controls and relay-cuts, the unbuilt ones as not built", () => {
    expect(SUITE.map((entry) => entry.name)).toEqual([
      "upstream-cuts",
      "server-sigkill",
      "bridge-sigkill",
      "sidecar-clients",
      "controls",
      "long-parts",
      "fuzz",
      "malformed-requests",
      "soak",
      "relay-cuts",
      "secrets-scan",
    ]);
    const lines = reliabilityTable(SUITE.map((entry) => ({ entry })));
    const planned = SUITE.filter(isPlanned);
    expect(lines.filter((line) => line.endsWith("| not built |"))).toHaveLength(planned.length);
  });

  it("shows a run row's figures, pass or FAIL, and its notes under the table", () => {
    const fuzz = SUITE.find((entry) => entry.name === "fuzz");
    if (fuzz === undefined) throw new Error("no fuzz scenario");
    expect(reliabilityTable([{ entry: fuzz, row: row(true) }])).toEqual([
      "| scenario | load | faults injected | turns ended exactly once | durable events lost | duplicated | crashes | leaked processes | peak RSS | result |",
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
      "| fuzz | 3 frames | 3 | — | 0 | — | 0 | — | 200 MiB | pass |",
      "",
      "- fuzz: seed 17",
    ]);
    expect(reliabilityTable([{ entry: fuzz, row: row(false) }])[2]).toMatch(/\| FAIL \|$/);
  });
});
