/**
 * The turn in which the model summarises a session's conversation, for the bridge's own
 * compaction on the `serve` backend (OpenCode 1.18.33's `/api` has no compaction on demand:
 * its route answers 503). The summary then primes a new OpenCode session, as a continued
 * session's conversation does; the turn itself stays in the transcript, where the user sees
 * what the model kept.
 */
import { AbortError, OpencodeBridgeError, UsageError } from "../../errors.js";
import type { Session } from "../session/session.js";

/** What the model is asked; its reply is the whole summary. */
export const SUMMARY_PROMPT =
  "Summarize our conversation so far so that it can go on from your summary alone: the goal, " +
  "what was done and decided, the files involved, and what is left to do. Reply with the " +
  "summary only.";

/** A summary longer than this is cut (it is model output, primed into every later session). */
export const SUMMARY_MAX_CHARS = 48_000;

/**
 * Sends the summary prompt to `session` (idle, else a UsageError) and gives the reply once its
 * turn completed; an error when it did not (nothing is compacted then). The caller's `signal`
 * stops the wait, not the turn.
 */
export async function summaryOf(session: Session, signal?: AbortSignal): Promise<string> {
  refuseBusy(session, "compact");
  const turn = await session.send(SUMMARY_PROMPT, {
    delivery: "queue",
    ...(signal === undefined ? {} : { signal }),
  });
  const result = await untilDone(turn.done(), signal);
  if (result.outcome !== "completed" || result.text.trim() === "") {
    throw new OpencodeBridgeError(
      `the summary turn of session ${session.id} ended ${result.outcome}${result.text.trim() === "" ? " without a summary" : ""}: nothing was compacted (its turn is in the transcript); compact again`,
    );
  }
  return result.text.length > SUMMARY_MAX_CHARS
    ? `${result.text.slice(0, SUMMARY_MAX_CHARS)}…`
    : result.text;
}

/** Refuses while anything runs or waits: a compaction must not swap the OpenCode session under it. */
export function refuseBusy(session: Session, what: string): void {
  if (session.busy) {
    throw new UsageError(
      `session ${session.id} is busy (a turn runs, an input waits, an ask is open or an undo or compaction is under way): ${what} once it has ended, or interrupt it first`,
    );
  }
}

function untilDone<T>(done: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return done;
  if (signal.aborted) return Promise.reject(new AbortError("waiting for the summary turn"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () =>
      reject(new AbortError("waiting for the summary turn", { cause: signal.reason }));
    signal.addEventListener("abort", onAbort, { once: true });
    done.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
