/**
 * Replay (no server): every fixture recorded from the real 1.18.33 server runs through its
 * scenario's client code again and must go exactly as recorded.
 */
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { scenarios } from "../scenarios/index.js";
import { RECORDED_VERSION, replayScenario } from "../scenarios/record.js";
import { fixturePath } from "../support/fixture-files.js";

describe(`fixtures recorded from OpenCode ${RECORDED_VERSION}, replayed`, () => {
  it.each(scenarios.map((scenario) => [scenario.name, scenario] as const))(
    "%s",
    async (_, scenario) => {
      await replayScenario(scenario);
    },
  );

  it("has a scenario for every fixture file", () => {
    const files = readdirSync(fixturePath(`opencode-${RECORDED_VERSION}`)).filter((file) =>
      file.endsWith(".transcript.ndjson"),
    );
    expect(files.sort()).toEqual(
      scenarios.map((scenario) => `${scenario.name}.transcript.ndjson`).sort(),
    );
  });
});
