/**
 * One group commit's SQL: the appends of several calls (of one session or many) numbered and
 * written in one transaction, each session's upstream cursor with them.
 *
 * Numbering is safe when several processes append to the same session: each session has a
 * `heads` row (its last seq and cursor), and a commit locks the rows of its sessions before it
 * reads their last seq; a second process's commit for the same session waits on that row lock
 * until the first commits, then reads the seq the first left. A row lock rather than an
 * advisory lock: it is keyed by the session id itself (advisory locks take a number, so a
 * hash, and unrelated sessions could collide), it is released by the commit or rollback with
 * nothing to forget, it holds through transaction-mode poolers, and the same row gives
 * `lastSeq` without scanning the events. The commit announces each session's new last seq
 * (event-notices.ts), delivered by Postgres only once the commit is done. The rows are locked in session-id order, in one
 * statement, so that two commits over the same sessions never wait on each other in a cycle.
 */
import type pg from "pg";
import type { CanonicalEvent } from "../../events/canonical.js";
import type { RowCodec } from "../encryption/row-codec.js";
import { type AppendFence, type FencedAppendError, refusedByFence } from "./append-fence.js";
import { announceAppends } from "./event-notices.js";
import { numberOfColumn } from "./rows.js";

/** One `append` call: durable events of `sessionId` only, checked by the caller. */
export interface AppendJob {
  sessionId: string;
  events: readonly CanonicalEvent[];
  cursor: string | undefined;
  /** The session's lease, when a cluster's driver appends (append-fence.ts). */
  fence?: AppendFence | undefined;
}

/**
 * Writes `jobs` in one transaction; gives each job the events it stored (with seq), or the
 * error refusing it when its fence no longer holds (the batch's other jobs are written).
 */
export async function commitAppends(
  client: pg.ClientBase,
  jobs: readonly AppendJob[],
  where: string,
  codec: RowCodec,
): Promise<(CanonicalEvent[] | FencedAppendError)[]> {
  const sessions = [...new Set(jobs.map((job) => job.sessionId))].sort();
  await client.query("BEGIN");
  try {
    const lastSeqs = await lockHeads(client, sessions, where);
    const refused = await refusedByFence(client, jobs, where);
    const known = await knownEventIds(client, jobs);
    const rows: EventRows = { sessionIds: [], seqs: [], eventIds: [], types: [], bodies: [] };
    const cursors = new Map<string, string>();
    const stored = jobs.map((job, index) => {
      if (refused.has(index)) return [];
      let seq = lastSeqs.get(job.sessionId) ?? 0;
      const ids = known.get(job.sessionId) ?? new Set<string>();
      known.set(job.sessionId, ids);
      const kept: CanonicalEvent[] = [];
      for (const event of job.events) {
        // A re-delivery (already stored, or twice in this batch) keeps its first seq.
        if (ids.has(event.id)) continue;
        ids.add(event.id);
        seq += 1;
        const numbered = { ...event, seq } as CanonicalEvent;
        rows.sessionIds.push(job.sessionId);
        rows.seqs.push(seq);
        rows.eventIds.push(event.id);
        rows.types.push(event.type);
        rows.bodies.push(codec.sealEvent(numbered));
        kept.push(numbered);
      }
      lastSeqs.set(job.sessionId, seq);
      if (job.cursor !== undefined) cursors.set(job.sessionId, job.cursor);
      return kept;
    });
    await insertEvents(client, rows);
    await client.query(
      `UPDATE heads SET last_seq = v.last_seq, cursor = coalesce(v.cursor, heads.cursor)
       FROM unnest($1::text[], $2::bigint[], $3::text[]) AS v(session_id, last_seq, cursor)
       WHERE heads.session_id = v.session_id`,
      [
        sessions,
        sessions.map((id) => lastSeqs.get(id) ?? 0),
        sessions.map((id) => cursors.get(id) ?? null),
      ],
    );
    // Only the sessions that gained events: a cursor alone announces nothing to read.
    await announceAppends(
      client,
      new Map(
        jobs
          .filter((_, index) => (stored[index]?.length ?? 0) > 0)
          .map((job) => [job.sessionId, lastSeqs.get(job.sessionId) ?? 0]),
      ),
    );
    await client.query("COMMIT");
    return stored.map((events, index) => refused.get(index) ?? events);
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

/** Creates the missing heads and locks them all, in id order; gives each one's last seq. */
async function lockHeads(
  client: pg.ClientBase,
  sessions: readonly string[],
  where: string,
): Promise<Map<string, number>> {
  // DO UPDATE (to the same value) rather than DO NOTHING: it locks an existing row as the
  // INSERT locks a new one, in the order the ids come.
  const { rows } = await client.query<{ session_id: string; last_seq: string }>(
    `INSERT INTO heads (session_id) SELECT id FROM unnest($1::text[]) AS id ORDER BY id
     ON CONFLICT (session_id) DO UPDATE SET last_seq = heads.last_seq
     RETURNING session_id, last_seq`,
    [sessions],
  );
  return new Map(rows.map((row) => [row.session_id, numberOfColumn(row.last_seq, where)]));
}

/** Of the batch's event ids, those their session already has. */
async function knownEventIds(
  client: pg.ClientBase,
  jobs: readonly AppendJob[],
): Promise<Map<string, Set<string>>> {
  const sessionIds = jobs.flatMap((job) => job.events.map(() => job.sessionId));
  const eventIds = jobs.flatMap((job) => job.events.map((event) => event.id));
  const known = new Map<string, Set<string>>();
  if (eventIds.length === 0) return known;
  const { rows } = await client.query<{ session_id: string; event_id: string }>(
    `SELECT e.session_id, e.event_id FROM events e
     JOIN unnest($1::text[], $2::text[]) AS w(session_id, event_id)
       ON e.session_id = w.session_id AND e.event_id = w.event_id`,
    [sessionIds, eventIds],
  );
  for (const row of rows) {
    const ids = known.get(row.session_id) ?? new Set<string>();
    ids.add(row.event_id);
    known.set(row.session_id, ids);
  }
  return known;
}

interface EventRows {
  sessionIds: string[];
  seqs: number[];
  eventIds: string[];
  types: string[];
  bodies: string[];
}

async function insertEvents(client: pg.ClientBase, rows: EventRows): Promise<void> {
  if (rows.seqs.length === 0) return;
  // ON CONFLICT as a second guard: under the heads lock no other commit can have stored these
  // ids meanwhile, so a skipped row would mean a writer that bypassed the lock; fail (and roll
  // back) rather than leave a hole in the seqs.
  const result = await client.query(
    `INSERT INTO events (session_id, seq, event_id, type, body)
     SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[])
     ON CONFLICT (session_id, event_id) DO NOTHING`,
    [rows.sessionIds, rows.seqs, rows.eventIds, rows.types, rows.bodies],
  );
  if (result.rowCount !== rows.seqs.length) {
    throw new Error(
      `${rows.seqs.length - (result.rowCount ?? 0)} events were stored by another writer ` +
        "during the append: the store was written without its session lock",
    );
  }
}
