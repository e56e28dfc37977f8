/**
 * What a fork (`Bridge.forkSession`) and a continuation (`Bridge.continueSession`) keep of a
 * session: its kept events up to the fork point, moved to the new session.
 */
import { UsageError } from "../../errors.js";
import type { CanonicalEvent } from "../../events/canonical.js";

/**
 * The events of `sessionId` (its kept ones, in order) before the turn `inputId` started: the
 * conversation a fork before that input has. Inputs admitted by then that had not reached the
 * model yet (queued behind it) are left out too. A UsageError for an input the session does not
 * have, or one that started no turn of its own (it joined a running one, or has not run yet).
 */
export function historyBefore(
  sessionId: string,
  events: readonly CanonicalEvent[],
  inputId: string,
): CanonicalEvent[] {
  if (!events.some((event) => event.type === "input.admitted" && event.data.inputId === inputId)) {
    throw new UsageError(`session ${sessionId} has no input ${JSON.stringify(inputId)}`);
  }
  const started = events.findIndex(
    (event) => event.type === "turn.started" && event.data.inputId === inputId,
  );
  if (started < 0) {
    throw new UsageError(
      `input ${inputId} of session ${sessionId} started no turn of its own (it joined a running turn, or has not run yet): fork before the input that started its turn`,
    );
  }
  const before = events.slice(0, started);
  const reachedModel = new Set<string>();
  for (const event of before) {
    if (event.type === "input.delivered") reachedModel.add(event.data.inputId);
    if (event.type === "turn.started" && event.data.inputId !== undefined) {
      reachedModel.add(event.data.inputId);
    }
  }
  return before.filter(
    (event) => event.type !== "input.admitted" || reachedModel.has(event.data.inputId),
  );
}

/** `events` as the first events of session `sessionId` (numbered anew by the store). */
export function movedTo(sessionId: string, events: readonly CanonicalEvent[]): CanonicalEvent[] {
  return events.map(({ seq: _seq, ...event }) => ({ ...event, sessionId }) as CanonicalEvent);
}
