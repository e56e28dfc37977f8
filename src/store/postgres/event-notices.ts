/**
 * The notice an append sends when it commits, for processes that follow sessions (the cluster's
 * durable follower, src/cluster/durable-feed.ts): on the channel `ocb_events`, one notice per
 * session the commit wrote, carrying only the session's new last seq and its id, never the
 * events (a notice's payload is limited to 8000 bytes; the reader reads the rows from the
 * store). `NOTIFY` inside the append's transaction is delivered only when that transaction
 * commits, so a notice never arrives before the rows it announces, and a rolled-back append
 * announces nothing.
 */
import type pg from "pg";

/** The LISTEN/NOTIFY channel of appended events. */
export const EVENTS_CHANNEL = "ocb_events";

/**
 * Longest session id a notice names; a longer one (not one this library makes) is announced
 * as "some session" (`*`), which sends readers to check every session they follow.
 */
const MAX_NAMED_ID_BYTES = 7_000;

/** What a notice says: a session's events up to `lastSeq` are committed. */
export type EventNotice =
  | { kind: "session"; sessionId: string; lastSeq: number }
  /** A session whose id is too long to name moved on: check them all. */
  | { kind: "some-session" };

/** Sends, in `client`'s open transaction, one notice per session with its last seq. */
export async function announceAppends(
  client: pg.ClientBase,
  lastSeqs: ReadonlyMap<string, number>,
): Promise<void> {
  if (lastSeqs.size === 0) return;
  // The payload is "<seq> <session id>": the seq first, so that an id with spaces parses.
  await client.query(
    `SELECT pg_notify($1, CASE WHEN octet_length(v.id) <= $2 THEN v.seq::text || ' ' || v.id
                               ELSE '*' END)
     FROM unnest($3::text[], $4::bigint[]) AS v(id, seq)`,
    [EVENTS_CHANNEL, MAX_NAMED_ID_BYTES, [...lastSeqs.keys()], [...lastSeqs.values()]],
  );
}

/** Reads a notice's payload; anything else than what `announceAppends` sends is undefined. */
export function parseEventNotice(payload: string | undefined): EventNotice | undefined {
  if (payload === "*") return { kind: "some-session" };
  const space = payload?.indexOf(" ") ?? -1;
  if (payload === undefined || space <= 0) return undefined;
  const lastSeq = Number(payload.slice(0, space));
  const sessionId = payload.slice(space + 1);
  if (!Number.isSafeInteger(lastSeq) || lastSeq < 0 || sessionId === "") return undefined;
  return { kind: "session", sessionId, lastSeq };
}
