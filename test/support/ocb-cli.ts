/** Runs the `ocb` CLI as a user does: a real process (through tsx), its output collected. */
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { setTimeout as delay } from "node:timers/promises";
import { pathToFileURL } from "node:url";
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
    const output = collectOutput(child);
    const bound = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(bound);
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // the whole group is gone already, as it should be
      }
      resolve({ code, stdout: output.stdout, stderr: output.stderr });
    });
  });
}

/** The preload that holds a phase of `ocb run` for a test (see phase-hold.ts). */
export const PHASE_HOLD = pathToFileURL(join(import.meta.dirname, "phase-hold.ts")).href;

/** A CLI process started with `startOcb`, to be driven while it runs. */
export interface RunningOcb {
  pid: number;
  /** Output so far. */
  readonly stdout: string;
  readonly stderr: string;
  /** Writes to its stdin (a pty's keyboard, when run under `script`). */
  type(text: string): void;
  /** Resolves once it has exited, with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
}

/**
 * Starts `ocb` as a user does, in its own process group (as a shell runs a foreground job);
 * with `tty`, under `script`, so that the CLI sees a terminal on stdin and stdout; `preload`
 * modules are imported before the CLI (for example `PHASE_HOLD`); `entry`: another script of
 * the checkout instead of the CLI (`scripts/start.ts`, what `npm start` runs).
 */
export function startOcb(
  args: string[],
  options: { env?: Record<string, string>; tty?: boolean; preload?: string[]; entry?: string } = {},
): RunningOcb {
  const preloads = (options.preload ?? []).flatMap((file) => ["--import", file]);
  const entry = options.entry ?? "src/cli/ocb.ts";
  const command = [process.execPath, "--import", "tsx", ...preloads, entry, ...args];
  const [file, argv] = options.tty
    ? ["script", ["-qefc", command.map(shellQuote).join(" "), "/dev/null"]]
    : [command[0] ?? process.execPath, command.slice(1)];
  const child = spawn(file, argv, {
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...options.env },
  });
  if (child.pid === undefined) throw new Error(`could not start ${file}`);
  trackProcess(child.pid, `ocb ${args[0] ?? ""} (cli e2e, driven)`);
  const output = collectOutput(child);
  child.stdin.on("error", () => {});
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => resolve(code));
  });
  return {
    pid: child.pid,
    get stdout() {
      return output.stdout;
    },
    get stderr() {
      return output.stderr;
    },
    type: (text) => child.stdin.write(text),
    exited,
  };
}

/** The child's output so far, read as it comes. */
function collectOutput(child: { stdout: Readable; stderr: Readable }): {
  readonly stdout: string;
  readonly stderr: string;
} {
  const output = { stdout: "", stderr: "" };
  child.stdout.on("data", (chunk: Buffer) => {
    output.stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output.stderr += chunk.toString();
  });
  return output;
}

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Waits until `ready()` holds for a running `ocb`, polling its output; fails naming `what`
 * (with the output) when it exits first or `boundMs` passes (a safety net, not a speed check).
 */
export async function untilOcb(
  what: string,
  cli: RunningOcb,
  ready: () => boolean,
  boundMs: number,
): Promise<void> {
  const deadline = Date.now() + boundMs;
  let exited = false;
  void cli.exited.then(() => {
    exited = true;
  });
  while (!ready()) {
    if (exited) throw new Error(`ocb exited before ${what}:\n${cli.stdout}\n${cli.stderr}`);
    if (Date.now() > deadline)
      throw new Error(`never reached ${what}:\n${cli.stdout}\n${cli.stderr}`);
    await delay(50);
  }
}

/** The URL an `ocb serve` prints once it listens (http or https), waited for within `boundMs`. */
export async function sidecarUrlOf(cli: RunningOcb, boundMs: number): Promise<string> {
  const listening = () => /listening on (https?:\/\/\S+)/.exec(cli.stdout)?.[1];
  await untilOcb("the sidecar's URL", cli, () => listening() !== undefined, boundMs);
  return listening() ?? "";
}

/**
 * Kills a started `ocb` and everything in its process group, if any is left: in a test's
 * cleanup, where it only does anything when the test failed before the process ended.
 */
export function killLeftOcb(cli: { pid: number }): void {
  try {
    process.kill(-cli.pid, "SIGKILL");
  } catch {
    // gone, as it should be
  }
}
