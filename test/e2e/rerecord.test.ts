/**
 * End to end: re-recording each fixture from the real 1.18.33 server gives the committed
 * transcript once ids, times, ports and heartbeats are normalised. A difference means the
 * server (or our client) now behaves differently from what the fixtures pin; run
 * `npm run fixtures:record` to see the diff and refresh them.
 */
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { normalizeTranscript } from "../../src/transport/transcript/normalize.js";
import { readTranscript } from "../../src/transport/transcript/transcript.js";
import { scenarios } from "../scenarios/index.js";
import { fixtureFileOf, recordScenario } from "../scenarios/record.js";

describe("re-recording the 1.18.33 fixtures from the live server", () => {
  it.each(scenarios.map((scenario) => [scenario.name, scenario] as const))(
    "%s is unchanged once normalised",
    async (_, scenario) => {
      const committed = normalizeTranscript(
        readTranscript(fixtureFileOf(scenario)).map(({ entry }) => entry),
      );
      let recorded = normalizeTranscript(await recordScenario(scenario));
      if (!isDeepStrictEqual(recorded, committed)) {
        // Under heavy load (two workers and other suites on two cores), 1.18's background
        // work has once been seen to land its events in another place (about 1 run in 6 of
        // the full suite). One more recording is allowed; a real change differs twice.
        process.stderr.write(`${scenario.name}: re-recording differed once; recording again\n`);
        recorded = normalizeTranscript(await recordScenario(scenario));
      }
      expect(recorded).toEqual(committed);
    },
  );
});
