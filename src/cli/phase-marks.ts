/**
 * Where an `ocb run`'s time goes, for the cold-run bench (`bench/cold-run.ts`): with
 * `OCB_PHASE_LOG=<file>` set, each phase's end is marked (ms since the process started) and
 * the marks are written to that file as JSON when the run ends. Unset, nothing is kept.
 */
import { writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { type Logger, silentLogger } from "../util/logger.js";

/** The environment variable that names the file the marks go to. */
export const PHASE_LOG_ENV = "OCB_PHASE_LOG";

/** The log lines of the managed server's start that mark a phase (start-opencode.ts). */
const SERVER_PHASES: Readonly<Record<string, string>> = {
  "spawning opencode": "server spawned",
  "opencode serve is ready": "server ready",
};

export class PhaseMarks {
  readonly #file: string | undefined;
  readonly #marks: [string, number][] = [];

  constructor(file: string | undefined = process.env[PHASE_LOG_ENV]) {
    this.#file = file === "" ? undefined : file;
  }

  /** Marks the end of `phase` now (the first mark of a name counts). */
  mark(phase: string): void {
    if (this.#file === undefined || this.#marks.some(([name]) => name === phase)) return;
    this.#marks.push([phase, Math.round(performance.now())]);
  }

  /** A logger that marks the server's start phases from the bridge's own log lines. */
  logger(): Logger {
    if (this.#file === undefined) return silentLogger;
    const marking = (message: string): void => {
      const phase = SERVER_PHASES[message];
      if (phase !== undefined) this.mark(phase);
    };
    return { ...silentLogger, debug: marking, info: marking };
  }

  /** Writes the marks (best effort: a bench aid must never fail the run). */
  write(): void {
    if (this.#file === undefined) return;
    try {
      writeFileSync(this.#file, JSON.stringify(Object.fromEntries(this.#marks)));
    } catch {
      // The bench reports a missing file; the run's own outcome stands.
    }
  }
}
