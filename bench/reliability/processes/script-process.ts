/**
 * A TypeScript script of the checkout (a scenario's child, or the `ocb` CLI) in a process of
 * its own, through tsx, in its own process group: its stdout read line by line (and copied to
 * a file when asked), its stderr written to a file of the scenario's work dir, and its group
 * SIGKILLed when the suite exits.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { killOnExit } from "../../../test/support/kill-on-exit.js";
import { trackProcess } from "../../../test/support/process-tracker.js";

const ROOT = join(import.meta.dirname, "..", "..", "..");

export interface ScriptProcess {
  child: ChildProcess;
  pid: number;
  /** Resolves when it has exited: its code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILLs its process group (what it started in the group too). */
  kill(): void;
}

export interface ScriptOptions {
  args?: string[];
  /** Options for node itself, before the script (V8 flags). */
  nodeArgs?: string[];
  env?: Record<string, string>;
  stderrFile: string;
  /** Where its stdout is copied, as well as read line by line. */
  stdoutFile?: string;
  onLine?(line: string): void;
}

/** Starts `script` (a path relative to the checkout's root). */
export function startScript(script: string, options: ScriptOptions): ScriptProcess {
  const args = [
    ...(options.nodeArgs ?? []),
    "--import",
    "tsx",
    join(ROOT, script),
    ...(options.args ?? []),
  ];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...options.env },
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${script}`);
  trackProcess(pid, `reliability ${script}`);
  child.stderr?.pipe(createWriteStream(options.stderrFile));
  if (options.stdoutFile !== undefined) child.stdout?.pipe(createWriteStream(options.stdoutFile));
  const onLine = options.onLine;
  if (child.stdout !== null && onLine !== undefined) {
    createInterface({ input: child.stdout }).on("line", onLine);
  }
  child.stdin?.on("error", () => {});
  const kill = (): void => {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // the group is gone already
    }
  };
  // Its own group does not get the terminal's Ctrl-C: the suite's exit takes it down.
  const guard = killOnExit(kill);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      guard.dispose();
      resolve({ code, signal });
    });
  });
  return { child, pid, exited, kill };
}

/** The stderr file of `name` in `workDir`. */
export const stderrFile = (workDir: string, name: string): string =>
  join(workDir, `${name}.stderr.log`);
