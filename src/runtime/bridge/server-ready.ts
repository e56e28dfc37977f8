/**
 * What a send waits for on a managed server: the server back after a crash, then whatever the
 * send needs of it (its model in the catalog). A server that dies again during that wait (the
 * next crash cuts a restart's model wait, or the crash is not heard yet) refuses connections:
 * that is waited out too, through the supervisor's next restart, a bounded number of times.
 */
import { ConnectionError } from "../../errors.js";
import { sleep } from "../../util/abort.js";

/** How long a refused look waits for the server's death to show before it counts as refused. */
const DEATH_GRACE_MS = 500;
const DEATH_POLL_MS = 25;

/** The part of a supervised server this needs. */
export interface Restarting {
  /** Resolves once the server runs again after a crash (at once when it runs). */
  restarted(signal?: AbortSignal): Promise<void>;
  /** Whether its process has died (restarting, or the supervisor gave up). */
  readonly died: boolean;
  /** Whether the supervision ended: closed, or the restarts gave up. */
  readonly ended: boolean;
}

/**
 * Waits for `supervisor`'s restart, then runs `look`; when `look` cannot reach the server
 * because it died meanwhile, waits for the next restart and looks again, for as long as the
 * supervisor restarts it (its own bound ends that). Without a supervisor, `look` runs once; a
 * server that refuses while it runs is not waited for.
 */
export async function whenServerReady(
  supervisor: Restarting | undefined,
  look: () => Promise<void>,
  signal: AbortSignal | undefined,
): Promise<void> {
  for (;;) {
    await supervisor?.restarted(signal);
    try {
      await look();
      return;
    } catch (error) {
      if (supervisor === undefined || !(error instanceof ConnectionError)) throw error;
      if (!(await diedSoon(supervisor, signal)) || supervisor.ended) throw error;
    }
  }
}

/**
 * Whether the server died, allowing for its death to show: a SIGKILLed process closes its
 * sockets (the look fails) a moment before it stops counting as running.
 */
async function diedSoon(supervisor: Restarting, signal: AbortSignal | undefined): Promise<boolean> {
  for (let waited = 0; !supervisor.died; waited += DEATH_POLL_MS) {
    if (waited >= DEATH_GRACE_MS) return false;
    await sleep(DEATH_POLL_MS, signal, "waiting for the server's death to show");
  }
  return true;
}
