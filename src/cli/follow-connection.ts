/** `ocb run` shows the session's connection changes beside its turn's events. */
import type { CanonicalEvent } from "../events/canonical.js";
import type { Session } from "../runtime/session/session.js";

/**
 * Shows the session's connection changes while the turn streams: a turn's events never carry
 * them (they name no turn), and without them an outage looks like a hang. Live only (from
 * now on); ends when `signal` fires or the session closes.
 */
export async function followConnection(
  session: Pick<Session, "events">,
  show: (event: CanonicalEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  try {
    // After every kept seq: nothing kept is read again, only what comes from now on.
    for await (const event of session.events({ after: Number.MAX_SAFE_INTEGER, signal })) {
      if (event.type === "connection.changed") show(event);
    }
  } catch (error) {
    // Only a display aid: the turn goes on whatever happens to it.
    if (!signal.aborted) {
      console.error(`ocb: stopped showing connection changes: ${(error as Error).message}`);
    }
  }
}
