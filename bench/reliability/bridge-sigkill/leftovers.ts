/**
 * The processes the bridge-sigkill scenario caused: the bridge children, the managed servers
 * (process groups) and their keepers. Counted at its end (a leak is any still running), and
 * stopped whatever happened, so that a failed run leaves nothing behind either.
 */
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { isProcessGroupRunning, isProcessRunning } from "../../../src/util/process-liveness.js";

const POLL_MS = 50;

/** The keepers of the server led by `serverPgid` (the keeper names itself `ocb-keeper <pgid>`). */
export function keeperPids(serverPgid: number): number[] {
  if (process.platform !== "linux") return [];
  const title = `ocb-keeper ${serverPgid}`;
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
    } catch {
      continue; // exited while we looked
    }
    if (cmdline.replaceAll("\0", " ").trim() === title && isProcessRunning(Number(entry))) {
      pids.push(Number(entry));
    }
  }
  return pids;
}

export class Leftovers {
  readonly #servers = new Set<number>();
  readonly #children = new Set<number>();
  readonly #keepers = new Set<number>();

  child(pid: number): void {
    this.#children.add(pid);
  }

  /** A server seen, and its keepers (looked up now: they are started beside it). */
  server(pgid: number): void {
    this.#servers.add(pgid);
    for (const keeper of keeperPids(pgid)) this.#keepers.add(keeper);
  }

  /** The servers seen, in order. */
  get servers(): number[] {
    return [...this.#servers];
  }

  /** Descriptions of what still runs: `opencode serve` groups, keepers, bridge children. */
  running(): string[] {
    for (const pgid of this.#servers) for (const pid of keeperPids(pgid)) this.#keepers.add(pid);
    return [
      ...[...this.#servers].filter(isProcessGroupRunning).map((pid) => `opencode serve ${pid}`),
      ...[...this.#keepers].filter(isProcessRunning).map((pid) => `keeper ${pid}`),
      ...[...this.#children].filter(isProcessGroupRunning).map((pid) => `bridge child ${pid}`),
    ];
  }

  /** Waits up to `boundMs` for everything to have stopped by itself; what still runs. */
  async settle(boundMs: number): Promise<string[]> {
    const deadline = Date.now() + boundMs;
    let left = this.running();
    while (left.length > 0 && Date.now() < deadline) {
      await delay(POLL_MS);
      left = this.running();
    }
    return left;
  }

  /**
   * Stops whatever still runs (a failed run's): nothing of the scenario outlives it. A keeper
   * gets SIGTERM, on which it removes its socket and exits (leaving its server, killed here).
   */
  async stop(): Promise<void> {
    const signal = (target: number, name: NodeJS.Signals) => {
      try {
        process.kill(target, name);
      } catch {
        // gone already
      }
    };
    for (const pid of this.#children) if (isProcessGroupRunning(pid)) signal(-pid, "SIGKILL");
    for (const pid of this.#keepers) if (isProcessRunning(pid)) signal(pid, "SIGTERM");
    for (const pgid of this.#servers) if (isProcessGroupRunning(pgid)) signal(-pgid, "SIGKILL");
    await this.settle(5_000);
  }
}
