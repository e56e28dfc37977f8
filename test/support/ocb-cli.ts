/** Runs the `ocb` CLI as a user does: a real process (through tsx), its output collected. */
import { spawn } from "node:child_process";
import { trackProcess } from "./process-tracker.js";

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function ocb(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/ocb.ts", ...args], {
      detached: true, // its own group, so a leftover server can be swept with it
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    trackProcess(child.pid, `ocb ${args[0] ?? ""} (cli e2e)`);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const bound = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(bound);
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // the whole group is gone already, as it should be
      }
      resolve({ code, stdout, stderr });
    });
  });
}
