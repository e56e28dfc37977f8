/**
 * A session that went on in a new OpenCode session (`session.rehydrated`) keeps the events of
 * the lost one too; its native cursor, its running turn and the inputs it waits for are the new
 * one's only.
 */
import type { CanonicalEvent } from "./canonical.js";

/**
 * The events after the latest `session.rehydrated` (all of them when there is none), or
 * `session.imported`: an imported session's history came from OpenCode's legacy messages, not
 * from the `/api` stream its cursor reads.
 */
export function sinceRehydration(events: readonly CanonicalEvent[]): readonly CanonicalEvent[] {
  const at = events.findLastIndex(
    (event) => event.type === "session.rehydrated" || event.type === "session.imported",
  );
  return at < 0 ? events : events.slice(at + 1);
}
