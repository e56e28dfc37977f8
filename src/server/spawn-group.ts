/**
 * How every OpenCode process of ours is spawned (`serve` and `run`): the leader of a process
 * group of its own (so that a stop takes the tools' shells too), output piped, and the inputs
 * of a sandbox written to the file descriptors after stderr.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Writable } from "node:stream";
import type { WrappedCommand } from "./sandbox/sandbox.js";

export function spawnGroupLeader(
  command: WrappedCommand,
  place: { cwd: string; env: Readonly<Record<string, string>> },
): ChildProcess {
  const child = spawn(command.binary, command.args, {
    cwd: place.cwd,
    env: place.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe", ...command.inputs.map(() => "pipe" as const)],
    windowsHide: true,
  });
  command.inputs.forEach((input, index) => {
    const pipe = child.stdio[3 + index] as Writable | null;
    pipe?.on("error", () => {}); // a child that ended before reading it says so by its exit
    pipe?.end(input);
  });
  return child;
}
