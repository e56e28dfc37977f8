/**
 * The live snapshots the sidecar answers `GET /v1/sessions/:id/live` with, folded from the
 * session's durable events. The fold of a long session is the cost (10,000 events: tens of
 * ms of the event loop), so the latest state of the sessions read recently is kept and only
 * the events after it are folded on the next read: events are append-only and ordered by seq,
 * so the state at seq N fed the events after N is the state built from the start (the
 * reducer's own contract). Bounded by sessions, least recently read dropped first.
 */
import { LRUCache } from "lru-cache";
import type { CanonicalEvent } from "../events/canonical.js";
import { type LiveConversation, liveConversationOf } from "../wire/live-conversation.js";
import { type LiveSnapshot, liveSnapshotOf } from "../wire/live-snapshot.js";

/** Sessions whose state is kept between reads. */
const KEPT_SESSIONS = 100;

export class LiveSnapshots {
  readonly #states = new LRUCache<string, LiveConversation>({ max: KEPT_SESSIONS });

  /** The snapshot of `sessionId` whose durable events, in seq order, are `events`. */
  of(sessionId: string, events: readonly CanonicalEvent[]): LiveSnapshot {
    const kept = this.#states.get(sessionId);
    const lastSeq = events.at(-1)?.seq ?? 0;
    // A store read back to an earlier seq (none should) is folded again from the start.
    const from = kept !== undefined && kept.conversation.lastSeq <= lastSeq ? kept : undefined;
    const state = liveConversationOf(sessionId, eventsAfter(events, from), from);
    this.#states.set(sessionId, state);
    return liveSnapshotOf(state);
  }
}

/** The events past `from`'s seq (all without it): a scan from the end, as few are new. */
function eventsAfter(
  events: readonly CanonicalEvent[],
  from: LiveConversation | undefined,
): readonly CanonicalEvent[] {
  if (from === undefined) return events;
  const after = from.conversation.lastSeq;
  let start = events.length;
  while (start > 0 && (events[start - 1]?.seq ?? 0) > after) start -= 1;
  return events.slice(start);
}
