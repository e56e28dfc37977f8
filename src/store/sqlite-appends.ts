/**
 * Group commit for the SQLite store: the appends of every session issued in the same tick are
 * written in ONE transaction, each session's events numbered after its last seq with its cursor
 * saved beside them, so that a commit costs its fsync once for all of them.
 *
 * The last seq of each session is kept in memory once read: a bridge is the only writer of its
 * sessions. Another process may still write the same file (two bridges on one store, an
 * `ocb import`), so each transaction takes the write lock first (IMMEDIATE) and reads the
 * file's `data_version`, which changes only when another connection committed: then the cached
 * seqs are forgotten and read again. Numbering and writing stay under one lock, as before.
 */
import type Database from "better-sqlite3";
import type { CanonicalEvent } from "../events/canonical.js";
import type { RowCodec } from "./encryption/row-codec.js";

/** One call to `append`, waiting for its commit. */
interface PendingAppend {
  sessionId: string;
  events: readonly CanonicalEvent[];
  cursor: string | undefined;
  resolve(stored: CanonicalEvent[]): void;
  reject(error: unknown): void;
}

export class SqliteAppends {
  readonly #insertEvent: Database.Statement<[string, number, string, string, string]>;
  readonly #saveCursor: Database.Statement<[string, string]>;
  readonly #lastSeq: Database.Statement<[string]>;
  readonly #dataVersion: Database.Statement<[]>;
  readonly #commit: (batch: readonly PendingAppend[]) => CanonicalEvent[][];
  /** Each session's last seq, as this connection knows it (see the file's header). */
  readonly #seqs = new Map<string, number>();
  #seenVersion: number | undefined;
  #pending: PendingAppend[] = [];
  #scheduled: ReturnType<typeof setImmediate> | undefined;
  readonly #codec: RowCodec;

  constructor(db: Database.Database, codec: RowCodec) {
    this.#codec = codec;
    this.#insertEvent = db.prepare(
      `INSERT INTO events (session_id, seq, event_id, type, body) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (session_id, event_id) DO NOTHING`,
    );
    this.#saveCursor = db.prepare(
      `INSERT INTO cursors (session_id, cursor) VALUES (?, ?)
       ON CONFLICT (session_id) DO UPDATE SET cursor = excluded.cursor`,
    );
    this.#lastSeq = db
      .prepare<[string]>("SELECT coalesce(max(seq), 0) FROM events WHERE session_id = ?")
      .pluck();
    this.#dataVersion = db.prepare<[]>("PRAGMA data_version").pluck();
    this.#commit = db.transaction((batch: readonly PendingAppend[]) =>
      this.#write(batch),
    ).immediate;
  }

  /** Queues one append for the next group commit. */
  append(
    sessionId: string,
    events: readonly CanonicalEvent[],
    cursor: string | undefined,
  ): Promise<CanonicalEvent[]> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ sessionId, events, cursor, resolve, reject });
      // setImmediate, not a microtask: sessions' appends come from different I/O callbacks of
      // the same loop turn, and they all land before the check phase.
      this.#scheduled ??= setImmediate(() => this.flush());
    });
  }

  /** Commits what is queued, now (also what `close` calls before closing the database). */
  flush(): void {
    if (this.#scheduled !== undefined) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    let stored: CanonicalEvent[][];
    try {
      stored = this.#commit(batch);
    } catch (error) {
      // Rolled back: nothing of the batch is stored, and seqs cached during it are suspect.
      this.#seqs.clear();
      for (const append of batch) append.reject(error);
      return;
    }
    for (const [index, append] of batch.entries()) append.resolve(stored[index] ?? []);
  }

  /** The session's events and cursor are gone (deleted): its seq is read again next time. */
  forget(sessionId: string): void {
    this.#seqs.delete(sessionId);
  }

  /** Inside the IMMEDIATE transaction: numbers and writes every append of the batch. */
  #write(batch: readonly PendingAppend[]): CanonicalEvent[][] {
    const version = this.#dataVersion.get();
    if (version !== this.#seenVersion) {
      this.#seqs.clear(); // another connection committed: its seqs may be ahead of ours
      this.#seenVersion = typeof version === "number" ? version : undefined;
    }
    const seqs = new Map<string, number>();
    const results = batch.map(({ sessionId, events, cursor }) => {
      if (cursor !== undefined) this.#saveCursor.run(sessionId, cursor);
      let seq = seqs.get(sessionId) ?? this.#seqs.get(sessionId) ?? this.#readSeq(sessionId);
      const stored: CanonicalEvent[] = [];
      for (const event of events) {
        const numbered = { ...event, seq: seq + 1 } as CanonicalEvent;
        const body = this.#codec.sealEvent(numbered);
        // No change: the session already has this event id (a re-delivery), and it keeps the
        // seq it was first stored with.
        if (this.#insertEvent.run(sessionId, seq + 1, event.id, event.type, body).changes === 0) {
          continue;
        }
        seq += 1;
        stored.push(numbered);
      }
      seqs.set(sessionId, seq);
      return stored;
    });
    // Cached only now that the transaction is through (a throw above rolls it all back).
    for (const [sessionId, seq] of seqs) this.#seqs.set(sessionId, seq);
    return results;
  }

  #readSeq(sessionId: string): number {
    const seq = this.#lastSeq.get(sessionId);
    return typeof seq === "number" ? seq : 0;
  }
}
