/**
 * Whether a process, or a process group, still runs. `kill(pid, 0)` alone is not enough: a
 * process whose parent is gone and that nobody reaps stays a zombie forever in some
 * containers, and it has exited for every purpose of ours. On Linux the state in
 * `/proc/<pid>/stat` tells the two apart.
 */
import { readdirSync, readFileSync } from "node:fs";

/** The fields of `/proc/<pid>/stat` that liveness checks need. */
export interface ProcStat {
  /** One letter: R running, S sleeping, Z zombie, … */
  state: string;
  ppid: number;
  pgrp: number;
}

/** The state, parent and group of `pid` from `/proc`, or undefined (gone, or not Linux). */
export function readProcStat(pid: number | string): ProcStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name comes in parentheses and may itself contain spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0] ?? "", ppid: Number(fields[1]), pgrp: Number(fields[2]) };
}

/** True while `pid` exists and is not a zombie. EPERM (exists, not ours) counts as running. */
export function isProcessRunning(pid: number): boolean {
  if (!signalZeroFinds(pid)) return false;
  if (process.platform !== "linux") return true;
  const stat = readProcStat(pid);
  return stat !== undefined && stat.state !== "Z";
}

/**
 * True while any process of the group `pgid` runs (zombies do not count). Where there are
 * no process groups (Windows) only the leader `pgid` itself is asked.
 */
export function isProcessGroupRunning(pgid: number): boolean {
  if (!signalZeroFinds(process.platform === "win32" ? pgid : -pgid)) return false;
  return process.platform === "linux" ? hasRunningMember(pgid) : true;
}

function signalZeroFinds(target: number): boolean {
  try {
    process.kill(target, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but is not ours to signal; it is still alive.
    return errorCode(error) !== "ESRCH";
  }
}

function hasRunningMember(pgid: number): boolean {
  const stats = runningProcStats();
  if (stats === undefined) return true;
  return stats.some(({ stat }) => stat.pgrp === pgid);
}

/**
 * Every process `/proc` lists now, with its stat, zombies left out; undefined where there is
 * no `/proc` to read (not Linux).
 */
export function runningProcStats(): { pid: number; stat: ProcStat }[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  return entries.flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    const stat = readProcStat(entry); // undefined: exited while we looked
    return stat === undefined || stat.state === "Z" ? [] : [{ pid: Number(entry), stat }];
  });
}

function errorCode(error: unknown): unknown {
  return typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
}
