/**
 * Runs `ocb` in this process, as `src/cli/ocb.ts` does (`runCli(ocbProgram(), argv)`), with
 * what it writes and its exit code collected: the CLI's parsing, commands, messages and exit
 * codes, and the real server or `opencode run` it starts, without a Node process and a tsx
 * compile per run. What only a real process shows (signals, Ctrl-C, SIGKILL, the process
 * exiting on its own, the `ocb` bin) stays with `ocb` from ocb-cli.ts.
 *
 * The CLI writes to the process's streams and reads `process.env` and `process.exitCode`, so
 * runs are one at a time, each with its own environment, stdin and stdout not terminals (as
 * `ocb` under a test runner), and every setting put back after. Every process the run started
 * must be gone when it returns: one left is killed and the run fails.
 */
import { format } from "node:util";
import { ocbProgram } from "../../src/cli/program.js";
import { runCli } from "../../src/cli/run-cli.js";
import { DescendantWatch } from "./descendants.js";
import type { CliRun } from "./ocb-cli.js";

/** Bound on the processes a run started being gone once it returned (a safety net). */
const LEFT_BOUND_MS = 5_000;

let queue: Promise<unknown> = Promise.resolve();

/** `ocb …args` in this process, with `env` over `process.env` for the run. */
export function ocbInProcess(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const run = queue.then(() => runOnce(args, env));
  queue = run.catch(() => {});
  return run;
}

async function runOnce(args: string[], env: Record<string, string>): Promise<CliRun> {
  const output = { stdout: "", stderr: "" };
  const watch = new DescendantWatch(process.pid);
  const before = new Set(watch.seen.map(({ pid }) => pid));
  const restore = [
    setting(process.env, env),
    setting(process.stdin, { isTTY: false }),
    setting(process.stdout, { isTTY: false, write: writer(output, "stdout") }),
    setting(process.stderr, { isTTY: false, write: writer(output, "stderr") }),
    setting(console, {
      log: printer(output, "stdout"),
      info: printer(output, "stdout"),
      error: printer(output, "stderr"),
      warn: printer(output, "stderr"),
    }),
  ];
  const exitCode = process.exitCode;
  process.exitCode = undefined;
  let code: number;
  try {
    await runCli(ocbProgram(), [process.execPath, "ocb", ...args]);
    code = Number(process.exitCode ?? 0);
  } finally {
    process.exitCode = exitCode;
    for (const undo of restore.reverse()) undo();
  }
  try {
    await untilGone(watch, before);
  } finally {
    watch.stop();
  }
  return { code, stdout: output.stdout, stderr: output.stderr };
}

type Output = { stdout: string; stderr: string };

function writer(output: Output, stream: keyof Output) {
  return (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    output[stream] += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString();
    const done = rest.find((arg) => typeof arg === "function") as (() => void) | undefined;
    if (done) queueMicrotask(done);
    return true;
  };
}

function printer(output: Output, stream: keyof Output) {
  return (...args: unknown[]): void => {
    output[stream] += `${format(...args)}\n`;
  };
}

/** Sets `values` on `target` (own properties, shadowing any inherited), and returns the undo. */
function setting(target: object, values: Record<string, unknown>): () => void {
  const saved = Object.keys(values).map(
    (key) => [key, Object.getOwnPropertyDescriptor(target, key)] as const,
  );
  for (const [key, value] of Object.entries(values)) {
    Object.defineProperty(target, key, {
      value,
      configurable: true,
      writable: true,
      enumerable: true,
    });
  }
  return () => {
    for (const [key, descriptor] of saved) {
      if (descriptor === undefined) Reflect.deleteProperty(target, key);
      else Object.defineProperty(target, key, descriptor);
    }
  };
}

/** Waits for the processes the run started (not those before it) to be gone; kills and fails else. */
async function untilGone(watch: DescendantWatch, before: Set<number>): Promise<void> {
  const left = () => watch.running().filter(({ pid }) => !before.has(pid));
  const deadline = Date.now() + LEFT_BOUND_MS;
  while (left().length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    watch.poll();
  }
  const still = left();
  if (still.length === 0) return;
  for (const { pid } of still) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(
    `ocb left processes running: ${still.map(({ pid, command }) => `${pid} ${command}`).join("; ")}`,
  );
}
