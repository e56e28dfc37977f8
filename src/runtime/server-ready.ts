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
      const crashed =
        supervisor !== undefined &&
        error instanceof ConnectionError &&
        supervisor.died &&
        !supervisor.ended;
      if (!crashed) throw error;
    }
  }
}
