/**
 * Suite-wide guard: after all tests, no process a test started (and recorded with
 * `trackProcess`) may still be alive. Survivors are killed and the run fails, naming them.
 * Also points the user's data directory (where bridges keep their store) at a temp dir. It is
 * the root's global setup: it runs once per run, whichever tiers (test/tiers.ts) run.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isRunning, PID_DIR_ENV } from "./support/process-tracker.js";

export function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "ocb-test-pids-"));
  process.env[PID_DIR_ENV] = dir;
  // Bridges keep transcripts in the user's data directory by default: never the real one here.
  const data = mkdtempSync(join(tmpdir(), "ocb-test-data-"));
  process.env.XDG_DATA_HOME = data;
  return () => {
    rmSync(data, { recursive: true, force: true });
    const survivors: string[] = [];
    for (const file of readdirSync(dir)) {
      for (const line of readFileSync(join(dir, file), "utf8").split("\n")) {
        const [pidText, label] = line.split("\t");
        const pid = Number(pidText);
        if (!Number.isInteger(pid) || pid <= 0 || !isRunning(pid)) continue;
        survivors.push(`${pid} (${label})`);
        try {
          process.kill(-pid, "SIGKILL");
        } catch {
          process.kill(pid, "SIGKILL");
        }
      }
    }
    rmSync(dir, { recursive: true, force: true });
    if (survivors.length > 0) {
      // vitest only logs a teardown error; the exit code is what makes CI fail.
      process.exitCode = 1;
      throw new Error(
        `processes started by tests were still alive after the suite: ${survivors.join(", ")}`,
      );
    }
  };
}
