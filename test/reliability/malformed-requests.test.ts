/**
 * The reliability suite's malformed-requests scenario, short variant (`npm run reliability --
 * --only malformed-requests` runs the full 10,000): about 1,000 generated malformed requests
 * and WebSocket frames to a real sidecar over the real `opencode` and the scripted model, from
 * the suite's fixed seed: each answered with its documented code, the sidecar healthy after,
 * its heap flat, no process left.
 */
import { afterAll, describe, expect, it } from "vitest";
import {
  MALFORMED_REQUESTS,
  malformedRequestsScenario,
} from "../../bench/reliability/scenarios/malformed-requests.js";
import { createSuiteFiles, scenarioContext } from "../../bench/reliability/suite-files.js";

const suite = createSuiteFiles();
afterAll(() => suite.remove());

describe("reliability: malformed requests to the sidecar (short variant)", () => {
  it(`answers ${MALFORMED_REQUESTS.short.toLocaleString("en-US")} malformed requests as documented`, async () => {
    const context = scenarioContext(suite, malformedRequestsScenario.name, {
      short: true,
      seed: 17,
    });
    const row = await malformedRequestsScenario.run(context);
    expect(row.notes.filter((note) => /first wrong|health check failed|NOT/.test(note))).toEqual(
      [],
    );
    expect(row.passed).toBe(true);
    expect(row.faultsInjected).toBeGreaterThanOrEqual(MALFORMED_REQUESTS.short);
    expect(row.crashes).toBe(0);
    expect(row.leakedProcesses).toBe(0);
    // The suite was told the token and the provider key, for the secrets scan.
    expect(suite.secrets.size).toBeGreaterThanOrEqual(2);
  }, 120_000);
});
