/**
 * A `LiveConversation` to and from its snapshot (`GET /v1/sessions/:id/live`): the snapshot is
 * the state without what only a live reader knows (text streaming now, the running turn's
 * usage, the connection), which a view built from it gets from its subscription.
 */
import type { LiveSnapshot } from "../wire/live-snapshot.js";
import { assertType, type Equals } from "../wire/type-equality.js";
import { emptyLiveConversation, type LiveConversation } from "./live-conversation.js";

type Ephemeral = "streaming" | "usage" | "connection";

/** `live` without what only a live reader knows. */
export function liveSnapshotOf(live: LiveConversation): LiveSnapshot {
  const { streaming: _streaming, usage: _usage, connection: _connection, ...snapshot } = live;
  return snapshot;
}

/** The live state a view starts from: the snapshot, nothing streaming yet. */
export function liveFromSnapshot(snapshot: LiveSnapshot): LiveConversation {
  const empty = emptyLiveConversation(snapshot.conversation.sessionId);
  return { ...snapshot, streaming: empty.streaming, connection: empty.connection };
}

// The schema and the reducer's type stay one shape: assignable both ways (`Readonly` records
// and the conversation's intersections keep exact equality from holding).
const _toState = (value: LiveSnapshot): Omit<LiveConversation, Ephemeral> => value;
const _fromState = (value: Omit<LiveConversation, Ephemeral>): LiveSnapshot => value;
// Assignability lets an optional field be missing on one side (and zod would drop it): the
// field names must be the same too.
assertType<Equals<keyof LiveSnapshot, Exclude<keyof LiveConversation, Ephemeral>>>(true);
