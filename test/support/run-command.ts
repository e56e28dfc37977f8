/**
 * Runs a command to its end, as a shell would: its own process group (recorded with
 * `trackProcess`), its output collected, the whole group killed when it ends or its bound
 * passes, so nothing it started (an install script, a server) outlives it.
 */
import { spawn } from "node:child_process";
import { trackProcess } from "./process-tracker.js";

export interface CommandRun {
  /** The exit code; null when a signal ended it (the bound, for one). */
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CommandOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** After this long the group is killed: a hang ends the test rather than the suite. */
  boundMs: number;
}

export function runCommand(
  file: string,
  args: string[],
  options: CommandOptions,
): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    trackProcess(child.pid, `${file} ${args.slice(0, 2).join(" ")}`);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // the whole group is gone already
      }
    };
    const bound = setTimeout(killGroup, options.boundMs);
    child.on("error", (error) => {
      clearTimeout(bound);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(bound);
      killGroup();
      resolve({ code, stdout, stderr });
    });
  });
}
