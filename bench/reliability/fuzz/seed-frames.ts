/**
 * The recorded native frames the fuzzer mutates: every fixture the project's normaliser tests
 * replay, grouped per surface and kept in recorded order (a sequence drives a normaliser's
 * state the way a real turn does, so a mutation lands in a realistic state).
 */
import { readdirSync, readFileSync } from "node:fs";
import { recordedEvents } from "../../../test/support/fixture-events.js";
import { fixturePath, readNdjson } from "../../../test/support/fixture-files.js";

/** The surfaces a normaliser reads: `/api`, legacy `/event`, `opencode run` stdout, 2.0. */
export type Surface = "api" | "legacy" | "run" | "v2";

export const SURFACES: readonly Surface[] = ["api", "legacy", "run", "v2"];

/** One recorded sequence: parsed frames for the event streams, raw lines for `opencode run`. */
export interface SeedSequence {
  surface: Surface;
  name: string;
  frames: readonly unknown[];
}

const CURRENT = "opencode-1.18.33";

function transcripts(prefix: string): string[] {
  return readdirSync(fixturePath(CURRENT))
    .filter((file) => file.startsWith(prefix) && file.endsWith(".transcript.ndjson"))
    .sort();
}

/** Every recorded sequence, per surface. */
export function seedSequences(): SeedSequence[] {
  const api = transcripts("api-").map((file) => ({
    surface: "api" as const,
    name: file,
    frames: recordedEvents(fixturePath(`${CURRENT}/${file}`)),
  }));
  const legacy = [
    ...transcripts("legacy-").map((file) => ({
      surface: "legacy" as const,
      name: file,
      frames: recordedEvents(fixturePath(`${CURRENT}/${file}`)),
    })),
    {
      surface: "legacy" as const,
      name: "opencode-1.18.5/ping.events.ndjson",
      frames: readNdjson("opencode-1.18.5/ping.events.ndjson"),
    },
  ];
  const run = readdirSync(fixturePath(CURRENT))
    .filter((file) => file.startsWith("run-") && file.endsWith(".stdout.ndjson"))
    .sort()
    .map((file) => ({
      surface: "run" as const,
      name: file,
      // The subprocess backend reads text lines; the final `{"exit":…}` line is the harness's.
      frames: readFileSync(fixturePath(`${CURRENT}/${file}`), "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "" && !line.startsWith('{"exit"'))
        .map((line) => JSON.parse(line) as unknown),
    }));
  const v2 = [
    {
      surface: "v2" as const,
      name: "opencode-2.0.18/interrupt.transcript.ndjson",
      frames: recordedEvents(fixturePath("opencode-2.0.18/interrupt.transcript.ndjson")),
    },
  ];
  return [...api, ...legacy, ...run, ...v2].filter((sequence) => sequence.frames.length > 0);
}
