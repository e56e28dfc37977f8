/**
 * A scenario is client code that drives one session through the typed client. The same
 * code runs live (against the real server, through a RecordingTransport, to make a fixture)
 * and replayed (through a ReplayTransport, from the fixture), so a fixture pins exactly what
 * that code saw. Scenarios must be deterministic in the calls they make: wait for events,
 * never for time.
 */
import type { Transport } from "../../src/transport/transport.js";

export interface ScenarioContext {
  transport: Transport;
  /** The session's working directory (a temp dir live, any path in a replay). */
  directory: string;
}

export interface Scenario<Result = unknown> {
  /** File name under fixtures/opencode-1.18.33/ (without `.transcript.ndjson`). */
  name: string;
  surface: "legacy" | "api";
  description: string;
  /** OpenCode config merged over the demo provider (permissions, agents, …). */
  config?: Record<string, unknown>;
  run(context: ScenarioContext): Promise<Result>;
  /** Assertions on the result; they must hold live and replayed. */
  check(result: Result): void;
}

/** Config every recording uses: no title generation, which runs beside the turn and adds noise. */
export const RECORDING_CONFIG = { agent: { title: { disable: true } } };

/** Builds a scenario with its result type inferred. */
export function scenario<Result>(definition: Scenario<Result>): Scenario<Result> {
  return definition;
}
