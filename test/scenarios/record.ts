/**
 * Running a scenario live (recording it) or from its fixture (replaying it).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitForModel } from "../../src/client/wait-for-model.js";
import { HttpTransport } from "../../src/transport/http-transport.js";
import { RecordingTransport } from "../../src/transport/transcript/recording-transport.js";
import { ReplayTransport } from "../../src/transport/transcript/replay-transport.js";
import type { TranscriptEntry } from "../../src/transport/transcript/transcript.js";
import { fixturePath } from "../support/fixture-files.js";
import { startRealServer } from "../support/real-server.js";
import { RECORDING_CONFIG, type Scenario } from "./scenario.js";
import { DEMO_MODEL_V2 } from "./turns.js";

export const RECORDED_VERSION = "1.18.33";

/** Where a scenario's fixture lives. */
export function fixtureFileOf(scenario: Scenario): string {
  return fixturePath(`opencode-${RECORDED_VERSION}/${scenario.name}.transcript.ndjson`);
}

/** Runs `scenario` against a fresh real server and returns its transcript. */
export async function recordScenario(scenario: Scenario): Promise<TranscriptEntry[]> {
  const real = await startRealServer({ ...RECORDING_CONFIG, ...scenario.config });
  try {
    // Readiness, not part of the scenario: the /api catalog loads after the server is ready,
    // and polling it inside the recording would make the number of calls vary by run.
    await waitForModel(real.client, DEMO_MODEL_V2);
    const recorder = new RecordingTransport(
      new HttpTransport({ url: real.server.url, password: real.server.password }),
      {
        directory: real.directory,
        secrets: real.server.password === undefined ? [] : [real.server.password],
        scenario: scenario.name,
        version: RECORDED_VERSION,
        protocol: scenario.surface === "api" ? "opencode-1.18-api" : "opencode-1.18-legacy",
        metadata: { description: scenario.description, surface: scenario.surface },
      },
    );
    const result = await scenario.run({ transport: recorder, directory: real.directory });
    scenario.check(result);
    return recorder.finish("success");
  } finally {
    await real.close();
  }
}

/** Replays `scenario` from its fixture (or `entries`), checks it, and asserts it completed. */
export async function replayScenario(scenario: Scenario): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "ocb-replay-"));
  try {
    const replay = new ReplayTransport(fixtureFileOf(scenario), { directory });
    const result = await scenario.run({ transport: replay, directory });
    replay.assertComplete();
    scenario.check(result);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
