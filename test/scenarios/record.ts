/**
 * Running a scenario live (recording it) or from its fixture (replaying it).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OpencodeClient } from "../../src/opencode-client/opencode-client.js";
import { waitForModel } from "../../src/opencode-client/wait-for-model.js";
import { HttpTransport } from "../../src/transport/http-transport.js";
import { RecordingTransport } from "../../src/transport/transcript/recording-transport.js";
import { ReplayTransport } from "../../src/transport/transcript/replay-transport.js";
import type { TranscriptEntry } from "../../src/transport/transcript/transcript.js";
import { fixturePath } from "../support/fixture-files.js";
import { type RealServer, startRealServer, workDirectory } from "../support/real-server.js";
import { RECORDING_CONFIG, type Scenario } from "./scenario.js";
import { DEMO_MODEL_V2 } from "./turns.js";

export const RECORDED_VERSION = "1.18.33";

/** The bound on a location's model catalog loading before a recording (a safety net). */
const CATALOG_TIMEOUT_MS = 90_000;

/** Where a scenario's fixture lives. */
export function fixtureFileOf(scenario: Scenario): string {
  return fixturePath(`opencode-${RECORDED_VERSION}/${scenario.name}.transcript.ndjson`);
}

/** The server config `scenario` is recorded under: scenarios with the same one can share a server. */
export function recordingConfigOf(scenario: Scenario): Record<string, unknown> {
  return { ...RECORDING_CONFIG, ...scenario.config };
}

/**
 * Runs `scenario` and returns its transcript: on `on` (a server started with
 * `recordingConfigOf(scenario)`), in a directory of its own there, or else on a fresh server.
 */
export async function recordScenario(
  scenario: Scenario,
  on?: RealServer,
): Promise<TranscriptEntry[]> {
  if (on !== undefined) {
    const directory = workDirectory();
    try {
      return await recordOn(scenario, on, directory);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }
  const real = await startRealServer(recordingConfigOf(scenario));
  try {
    return await recordOn(scenario, real, real.directory);
  } finally {
    await real.close();
  }
}

async function recordOn(
  scenario: Scenario,
  real: RealServer,
  directory: string,
): Promise<TranscriptEntry[]> {
  const transport = () =>
    new HttpTransport({ url: real.server.url, password: real.server.password });
  // Readiness, not part of the scenario: the /api catalog of a location loads after the server
  // is ready, and polling it inside the recording would make the number of calls vary by run.
  // Each location loads its own catalog: a loaded machine has taken over the 30 s default.
  await waitForModel(new OpencodeClient(transport(), { directory }), DEMO_MODEL_V2, {
    timeoutMs: CATALOG_TIMEOUT_MS,
  });
  const recorder = new RecordingTransport(transport(), {
    directory,
    secrets: real.server.password === undefined ? [] : [real.server.password],
    scenario: scenario.name,
    version: RECORDED_VERSION,
    protocol: scenario.surface === "api" ? "opencode-1.18-api" : "opencode-1.18-legacy",
    metadata: { description: scenario.description, surface: scenario.surface },
  });
  const result = await scenario.run({ transport: recorder, directory });
  scenario.check(result);
  return recorder.finish("success");
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
