/**
 * SIGKILLs a bridge's managed server (its whole process group, as a crash or the OOM killer
 * would) every few seconds, at random from the suite seed, each time once the supervisor has
 * it running again, until told to stop or until it made the kills it was asked for.
 */

import { AbortError } from "../../../src/errors.js";
import type { Bridge } from "../../../src/runtime/bridge/bridge.js";
import { SupervisedServer } from "../../../src/server/supervised-server.js";
import { sleep } from "../../../src/util/abort.js";
import type { SeededRandom } from "../faults/seeded-random.js";

export interface KillRecord {
  pid: number;
  at: number;
  /** Kill → the supervisor's restart finished (ms); undefined when the run stopped first. */
  restartMs?: number;
}

export interface KillerOptions {
  /** The pause before each kill, from the moment the server runs again (ms). */
  gapMs: { min: number; max: number };
  random: SeededRandom;
  signal: AbortSignal;
  /**
   * Stop once this many kills were made and the server runs again after the last one (default:
   * until `signal`). A count rather than a duration makes a short run inject the same faults on a
   * fast machine and a slow one: a restart takes seconds, more on a loaded machine.
   */
  kills?: number;
  /** Told of each kill, as it happens. */
  onKill?: (kill: KillRecord, count: number) => void;
}

/** Resolves at the server's next restart; rejects when the supervisor gives up or `signal` fires. */
function nextRestart(server: SupervisedServer, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const stop = (error: Error) => {
      off();
      reject(error);
    };
    const onAbort = () => stop(new AbortError("waiting for the server's restart"));
    const off = server.onRestart(() => {
      signal.removeEventListener("abort", onAbort);
      off();
      resolve();
    });
    signal.addEventListener("abort", onAbort, { once: true });
    void server.exited.then(() => stop(new Error("the supervisor gave up restarting the server")));
  });
}

/** Kills until `signal` fires, or `kills` were made; resolves with the kills made. */
export async function killRepeatedly(
  bridge: Bridge,
  options: KillerOptions,
): Promise<KillRecord[]> {
  const server = bridge.server;
  if (!(server instanceof SupervisedServer)) {
    throw new Error("the bridge's server is not supervised (a managed server is needed)");
  }
  const kills: KillRecord[] = [];
  try {
    while (options.kills === undefined || kills.length < options.kills) {
      await sleep(options.random.between(options.gapMs.min, options.gapMs.max), options.signal);
      const pid = server.pid;
      if (pid === undefined) throw new Error("the managed server has no pid");
      const kill: KillRecord = { pid, at: Date.now() };
      const restarted = nextRestart(server, options.signal);
      process.kill(-pid, "SIGKILL");
      kills.push(kill);
      options.onKill?.(kill, kills.length);
      await restarted;
      kill.restartMs = Date.now() - kill.at;
    }
  } catch (error) {
    if (!options.signal.aborted) throw error;
  }
  return kills;
}
