/**
 * What a send waits for on a managed server: the server back after a crash, then whatever the
 * send needs of it (its model in the catalog). A server that dies again during that wait (the
 * next crash cuts a restart's model wait, or the crash is not heard yet) refuses connections:
 * that is waited out too, through the supervisor's next restart, a bounded number of times.
 */
import { ConnectionError } from "../errors.js";

/** The part of a supervised server this needs. */
export interface Restarting {
  /** Resolves once the server runs again after a crash (at once when it runs). */
  restarted(signal?: AbortSignal): Promise<void>;
}

/**
 * Crashes in a row a send waits out while it gets ready, before it gives up with the last
 * error. Each one costs a restart (seconds), so this bounds the wait only where the server
 * keeps dying: a server killed every few seconds under load can die again before a send that
 * waited for its restart has found the model (the reliability suite's server-sigkill saw 4).
 */
export const READY_ATTEMPTS = 10;

/**
 * Waits for `supervisor`'s restart, then runs `look`; when `look` cannot reach the server,
 * waits for the next restart and looks again. Without a supervisor, `look` runs once.
 */
export async function whenServerReady(
  supervisor: Restarting | undefined,
  look: () => Promise<void>,
  signal: AbortSignal | undefined,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await supervisor?.restarted(signal);
    try {
      await look();
      return;
    } catch (error) {
      const retry =
        supervisor !== undefined && error instanceof ConnectionError && attempt < READY_ATTEMPTS;
      if (!retry) throw error;
    }
  }
}
