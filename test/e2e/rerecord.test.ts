/**
 * End to end: re-recording each fixture from the real 1.18.33 server gives the committed
 * transcript once ids, times, ports and heartbeats are normalised. A difference means the
 * server (or our client) now behaves differently from what the fixtures pin; run
 * `npm run fixtures:record` to see the diff and refresh them.
 *
 * The scenarios that are recorded under the same server config share one server, each in a
 * directory of its own: a scenario drives its own session and never stops the server.
 */
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { normalizeTranscript } from "../../src/transport/transcript/normalize.js";
import { readTranscript } from "../../src/transport/transcript/transcript.js";
import { scenarios } from "../scenarios/index.js";
import { fixtureFileOf, recordingConfigOf, recordScenario } from "../scenarios/record.js";
import type { Scenario } from "../scenarios/scenario.js";
import { useRealServer } from "../support/shared-real-server.js";

/**
 * Scenarios recorded on a fresh server of their own, as `npm run fixtures:record` records every
 * one: what 1.18.33 streams during an interrupted tool and around a subagent depends on what the
 * server is busy with, and on a shared server both differed from their fixtures twice in a row
 * (a clean-clone CI run and a helper's run), where on a fresh one they never had.
 */
const OWN_SERVER: ReadonlySet<string> = new Set(["legacy-interrupt-mid-tool", "legacy-subagent"]);

/** The scenarios by the server config they are recorded under, in their listed order. */
function byConfig(all: readonly Scenario[]): Map<string, Scenario[]> {
  const groups = new Map<string, Scenario[]>();
  for (const scenario of all) {
    const key = JSON.stringify(recordingConfigOf(scenario));
    groups.set(key, [...(groups.get(key) ?? []), scenario]);
  }
  return groups;
}

/** How a group's config is named in its tests' names. */
function configName([first]: readonly Scenario[]): string {
  const own = Object.keys(first?.config ?? {});
  return own.length === 0 ? "the recording config" : `the recording config and ${own.join(", ")}`;
}

describe("re-recording the 1.18.33 fixtures from the live server", () => {
  it("gives a server of its own only to scenarios that exist", () => {
    const names = new Set(scenarios.map((scenario) => scenario.name));
    expect([...OWN_SERVER].filter((name) => !names.has(name))).toEqual([]);
  });

  for (const [config, group] of byConfig(scenarios)) {
    describe(`on one server with ${configName(group)}`, () => {
      const real = useRealServer(JSON.parse(config));
      it.each(group.map((scenario) => [scenario.name, scenario] as const))(
        "%s is unchanged once normalised",
        async (_, scenario) => {
          const committed = normalizeTranscript(
            readTranscript(fixtureFileOf(scenario)).map(({ entry }) => entry),
          );
          const record = () =>
            recordScenario(scenario, OWN_SERVER.has(scenario.name) ? undefined : real());
          let recorded = normalizeTranscript(await record());
          if (!isDeepStrictEqual(recorded, committed)) {
            // Under heavy load (two workers and other suites on two cores), 1.18's background
            // work has once been seen to land its events in another place (about 1 run in 6 of
            // the full suite). One more recording is allowed; a real change differs twice.
            process.stderr.write(`${scenario.name}: re-recording differed once; recording again\n`);
            recorded = normalizeTranscript(await record());
          }
          expect(recorded).toEqual(committed);
        },
      );
    });
  }
});
