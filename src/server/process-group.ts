/**
 * Stopping a managed server together with everything it started. The server is spawned
 * as the leader of its own process group, so one signal to `-pid` reaches its children
 * (language servers, shells of running tools) too, and "stopped" means the whole group
 * is gone, not just the leader. What left the group (OpenCode runs a tool's shell detached,
 * in a session of its own) is found by parent pid before the first signal and stopped too.
 */
import { setTimeout as delay } from "node:timers/promises";
import { isProcessGroupRunning } from "../util/process-liveness.js";
import { detachedGroupsBelow } from "./detached-groups.js";

/** How long the group gets after SIGTERM before SIGKILL. */
export const DEFAULT_GRACE_MS = 3_000;
/** How long to wait after SIGKILL before giving up on a process the kernel has not removed. */
export const DEFAULT_KILL_WAIT_MS = 2_000;

const POLL_MS = 50;
// Windows has no process groups; there only the leader itself can be signalled.
const HAS_PROCESS_GROUPS = process.platform !== "win32";

/** Sends `signal` to the process group led by `pid`; false when the group no longer exists. */
export function signalProcessGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(HAS_PROCESS_GROUPS ? -pid : pid, signal);
    return true;
  } catch (error) {
    if (errorCode(error) === "ESRCH") return false;
    throw error;
  }
}

/** True while any process of the group led by `pid` is still running (zombies do not count). */
export const isProcessGroupAlive: (pid: number) => boolean = isProcessGroupRunning;

export interface TerminateOptions {
  graceMs?: number;
  killWaitMs?: number;
}

/** How a termination went. */
export interface TerminateResult {
  /** SIGKILL was needed. */
  forced: boolean;
  /** Every process of the group is gone (false only if even SIGKILL did not finish in time). */
  gone: boolean;
}

/**
 * SIGTERM to the group, wait up to `graceMs` for the leader to exit and the group to
 * empty, then SIGKILL the group and wait again. `leaderExited` settles when the leader's
 * exit has been observed (its 'exit' event), so the leader is never polled as a zombie.
 */
export async function terminateProcessGroup(
  pid: number,
  leaderExited: Promise<unknown>,
  options: TerminateOptions = {},
): Promise<TerminateResult> {
  // Found now, while their parents live: once the leader is gone they belong to init.
  const detached = detachedGroupsBelow(pid);
  const groups = [pid, ...detached];
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  for (const group of groups) signalProcessGroup(group, "SIGTERM");
  const calm =
    (await waitUntilGone(pid, leaderExited, graceMs)) && (await othersGone(detached, graceMs));
  if (calm) return { forced: false, gone: true };
  for (const group of groups) signalProcessGroup(group, "SIGKILL");
  const killWaitMs = options.killWaitMs ?? DEFAULT_KILL_WAIT_MS;
  const gone =
    (await waitUntilGone(pid, leaderExited, killWaitMs)) &&
    (await othersGone(detached, killWaitMs));
  return { forced: true, gone };
}

/** Waits (bounded) until none of `groups` has a running member. */
async function othersGone(groups: number[], timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (groups.some(isProcessGroupAlive)) {
    const left = until - Date.now();
    if (left <= 0) return false;
    await delay(Math.min(POLL_MS, left));
  }
  return true;
}

async function waitUntilGone(
  pid: number,
  leaderExited: Promise<unknown>,
  timeoutMs: number,
): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  // While the leader runs, its child handle keeps the event loop alive, so this timer is
  // unref'd: it must not be what holds a process open that is otherwise done.
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
    timer.unref();
  });
  const leader = leaderExited.then(
    () => "exited" as const,
    () => "exited" as const,
  );
  try {
    if ((await Promise.race([leader, timedOut])) === "timeout") return false;
  } finally {
    clearTimeout(timer);
  }
  // After the leader is gone nothing else may keep the loop alive; these short, bounded
  // polls stay ref'd so that `await close()` cannot be cut off half-way.
  while (isProcessGroupAlive(pid)) {
    const left = until - Date.now();
    if (left <= 0) return false;
    await delay(Math.min(POLL_MS, left));
  }
  return true;
}

function errorCode(error: unknown): unknown {
  return typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
}
