/**
 * Every process a run started, seen while it runs: a watcher polls /proc for the descendants
 * of a root pid (by parent pid, so processes in other groups and sessions, such as a detached
 * server and its keeper, count too) and remembers each one, so that the ones reparented after
 * their parent died are still known. Linux only.
 */
import { readdirSync, readFileSync } from "node:fs";
import { readProcStat } from "../../src/util/process-liveness.js";
import { isRunning, trackProcess } from "./process-tracker.js";

export interface SeenProcess {
  pid: number;
  /** The command line as last seen (a child just forked shows its parent's until it execs). */
  command: string;
  /** Its parent when first seen (before any reparenting). */
  parent?: number;
}

function parentOf(pid: number): number | undefined {
  return readProcStat(pid)?.ppid;
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "";
  }
}

export class DescendantWatch {
  readonly #root: number;
  readonly #seen = new Map<number, SeenProcess>();
  readonly #timer: NodeJS.Timeout;

  constructor(root: number, intervalMs = 50) {
    this.#root = root;
    this.#timer = setInterval(() => this.poll(), intervalMs);
    this.poll();
  }

  /** Looks once more (also done every interval). */
  poll(): void {
    const known = new Set([this.#root, ...this.#seen.keys()]);
    let entries: string[];
    try {
      entries = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
    } catch {
      return;
    }
    for (const seen of this.#seen.values()) seen.command = commandOf(seen.pid) || seen.command;
    // Repeat until no new child is found: a child may be listed before its parent.
    for (let found = true; found; ) {
      found = false;
      for (const entry of entries) {
        const pid = Number(entry);
        if (known.has(pid)) continue;
        const parent = parentOf(pid);
        if (parent === undefined || !known.has(parent)) continue;
        known.add(pid);
        found = true;
        const seen = { pid, command: commandOf(pid), parent };
        this.#seen.set(pid, seen);
        trackProcess(pid, `descendant of ${this.#root}: ${seen.command.slice(0, 80)}`);
      }
    }
  }

  /** Every descendant seen so far. */
  get seen(): SeenProcess[] {
    return [...this.#seen.values()];
  }

  /** The ones still running. */
  running(): SeenProcess[] {
    return this.seen.filter((process) => isRunning(process.pid));
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** Test cleanup: SIGKILLs what is left (and its group), so a failed test leaves nothing. */
  killLeft(): void {
    for (const { pid } of this.running()) {
      for (const target of [-pid, pid]) {
        try {
          process.kill(target, "SIGKILL");
        } catch {
          // gone, or not a group leader
        }
      }
    }
  }
}
