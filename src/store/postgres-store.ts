/**
 * The transcript store on Postgres (node-postgres): for sidecars that share their sessions, or
 * a team that already runs Postgres. The same guarantees as the SQLite store: a session's
 * events numbered densely with the upstream cursor in the same transaction, idempotent by event
 * id, versioned migrations; appends are group-committed (postgres/group-commit.ts) and safe
 * when several processes append to the same session (postgres/append-batch.ts).
 */
import type pg from "pg";
import { OpencodeBridgeError, UsageError } from "../errors.js";
import type { CanonicalEvent } from "../events/canonical.js";
import { type RekeyedBatch, resealEvent } from "./encryption/rekey.js";
import type { RowCodec } from "./encryption/row-codec.js";
import { sealedPrefix } from "./encryption/sealing-codec.js";
import type { StoreKeyring } from "./encryption/store-keys.js";
import { type AppendJob, commitAppends } from "./postgres/append-batch.js";
import type { AppendFence, FencedAppendError } from "./postgres/append-fence.js";
import { withCheckedOut } from "./postgres/checked-out.js";
import {
  type PostgresConnectionOptions,
  type PostgresTarget,
  postgresTarget,
  storeFailed,
} from "./postgres/connection.js";
import { GroupCommit } from "./postgres/group-commit.js";
import { checkPostgresKeys } from "./postgres/key-check.js";
import { openMigratedPool } from "./postgres/migrated-pool.js";
import { numberOfColumn, sessionOfPostgresRow } from "./postgres/rows.js";
import { type SessionQuery, sessionQuerySql } from "./session-query.js";
import type { ReadOptions, ServerRecord, SessionRecord, Store } from "./store.js";
import { checkTimestamps, durableEventsFor, readBounds } from "./store-input.js";

export { type AppendFence, FencedAppendError } from "./postgres/append-fence.js";
export type { PostgresConnectionOptions } from "./postgres/connection.js";

export interface PostgresEncryptionOptions {
  /**
   * Encrypts event bodies and titles at rest with these keys (encryption/sealing-codec.ts);
   * without it, the store must not be encrypted. Every sidecar of a cluster gives the same.
   */
  keyring?: StoreKeyring | undefined;
}

export class PostgresStore implements Store {
  /** The URL without its password. */
  readonly description: string;
  readonly #target: PostgresTarget;
  readonly #pool: pg.Pool;
  readonly #appends: GroupCommit<AppendJob, CanonicalEvent[] | FencedAppendError>;
  #closing: Promise<void> | undefined;
  /**
   * Bodies and titles in clear, or sealed (encryption/row-codec.ts).
   * @internal
   */
  readonly codec: RowCodec;

  private constructor(target: PostgresTarget, pool: pg.Pool, codec: RowCodec) {
    this.description = target.description;
    this.#target = target;
    this.#pool = pool;
    this.codec = codec;
    this.#appends = new GroupCommit((jobs) =>
      this.#withClient("append", (client) => commitAppends(client, jobs, this.description, codec)),
    );
  }

  /**
   * Connects to the database of `url` (`postgres://user:password@host:port/database`) and brings
   * its schema up to date. An unreachable server, a refused login, a missing database or one
   * written by a newer opencode-bridge fail with `UsageError`, without the password; so does
   * a keyring that does not fit the store (encryption/key-check.ts).
   */
  static async open(
    url: string,
    options: PostgresConnectionOptions = {},
    encryption: PostgresEncryptionOptions = {},
  ): Promise<PostgresStore> {
    const target = postgresTarget(url, options);
    const pool = await openMigratedPool(target);
    try {
      const codec = await withCheckedOut(pool, (client) =>
        checkPostgresKeys(client, target.description, encryption.keyring),
      );
      return new PostgresStore(target, pool, codec);
    } catch (error) {
      await pool.end().catch(() => {});
      if (error instanceof OpencodeBridgeError) throw error;
      throw storeFailed(target, "open", error);
    }
  }

  async append(
    sessionId: string,
    events: readonly CanonicalEvent[],
    cursor?: string,
  ): Promise<CanonicalEvent[]> {
    return this.#append({ sessionId, events, cursor });
  }

  /**
   * `append` by the cluster's driver of the session: refused with `FencedAppendError`, storing
   * nothing, when `fence` is no longer the session's lease (another sidecar took it over).
   * @internal
   */
  async appendFenced(
    fence: AppendFence,
    sessionId: string,
    events: readonly CanonicalEvent[],
    cursor?: string,
  ): Promise<CanonicalEvent[]> {
    return this.#append({ sessionId, events, cursor, fence });
  }

  async #append(job: AppendJob): Promise<CanonicalEvent[]> {
    this.#assertOpen();
    const durable = durableEventsFor(job.sessionId, job.events);
    if (durable.length === 0 && job.cursor === undefined) return [];
    const result = await this.#appends.submit({ ...job, events: durable });
    if (result instanceof Error) throw result;
    return result;
  }

  async read(sessionId: string, options: ReadOptions = {}): Promise<CanonicalEvent[]> {
    const { after, limit } = readBounds(options);
    const where = `${this.description}, session ${sessionId}`;
    // LIMIT NULL is Postgres's "no limit".
    const rows = await this.#query<{ seq: string; event_id: string; type: string; body: string }>(
      "read",
      `SELECT seq, event_id, type, body FROM events
       WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [sessionId, after, limit ?? null],
    );
    return rows.map((row) =>
      this.codec.openEvent(
        {
          sessionId,
          seq: numberOfColumn(row.seq, where),
          eventId: row.event_id,
          type: row.type,
          body: row.body,
        },
        where,
      ),
    );
  }

  async lastSeq(sessionId: string): Promise<number> {
    const rows = await this.#query<{ last_seq: string }>(
      "lastSeq",
      "SELECT last_seq FROM heads WHERE session_id = $1",
      [sessionId],
    );
    return rows[0] === undefined ? 0 : numberOfColumn(rows[0].last_seq, this.description);
  }

  async cursor(sessionId: string): Promise<string | undefined> {
    const rows = await this.#query<{ cursor: string | null }>(
      "cursor",
      "SELECT cursor FROM heads WHERE session_id = $1",
      [sessionId],
    );
    return rows[0]?.cursor ?? undefined;
  }

  async saveSession(record: SessionRecord): Promise<void> {
    checkTimestamps(record);
    await this.#query(
      "saveSession",
      `INSERT INTO sessions
         (id, backend, upstream_id, directory, title, state, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (id) DO UPDATE SET
         backend = excluded.backend, upstream_id = excluded.upstream_id,
         directory = excluded.directory, title = excluded.title, state = excluded.state,
         created_at = excluded.created_at, updated_at = excluded.updated_at`,
      [
        record.id,
        record.backend,
        record.upstreamId ?? null,
        record.directory,
        this.codec.sealTitle(record.id, record.title),
        record.state,
        record.createdAt,
        record.updatedAt,
      ],
    );
  }

  async session(id: string): Promise<SessionRecord | undefined> {
    const rows = await this.#query("session", "SELECT * FROM sessions WHERE id = $1", [id]);
    return rows[0] === undefined ? undefined : this.#record(rows[0]);
  }

  async sessions(query: SessionQuery = {}): Promise<SessionRecord[]> {
    const { sql, params } = sessionQuerySql(query, (index) => `$${index}`);
    const rows = await this.#query("sessions", sql, params);
    return rows.map((row) => this.#record(row));
  }

  async deleteSession(id: string): Promise<void> {
    this.#assertOpen();
    // After the appends already submitted, so that none of them lands after the delete.
    await this.#appends.drain();
    await this.#withClient("deleteSession", async (client) => {
      await client.query("BEGIN");
      try {
        // The head first: it waits for another process's append to this session to commit.
        await client.query("DELETE FROM heads WHERE session_id = $1", [id]);
        await client.query("DELETE FROM events WHERE session_id = $1", [id]);
        // A cluster's rows of the session go with it: nothing drives or answers it any more.
        await client.query("DELETE FROM leases WHERE session_id = $1", [id]);
        await client.query("DELETE FROM sends WHERE session_id = $1", [id]);
        await client.query("DELETE FROM sessions WHERE id = $1", [id]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    });
  }

  async saveServer(key: string, record: ServerRecord): Promise<void> {
    await this.#query(
      "saveServer",
      `INSERT INTO servers (key, body) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET body = excluded.body`,
      [key, JSON.stringify(record)],
    );
  }

  async server(key: string): Promise<ServerRecord | undefined> {
    const rows = await this.#query<{ body: string }>(
      "server",
      "SELECT body FROM servers WHERE key = $1",
      [key],
    );
    if (rows[0] === undefined) return undefined;
    try {
      return JSON.parse(rows[0].body) as ServerRecord;
    } catch {
      return undefined; // unreadable: as good as none; the bridge starts a new server
    }
  }

  async deleteServer(key: string): Promise<void> {
    await this.#query("deleteServer", "DELETE FROM servers WHERE key = $1", [key]);
  }

  /** Commits the appends under way, then closes every connection. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#appends.drain();
      await this.#pool.end();
    })();
    return this.#closing;
  }

  /**
   * One batch of `ocb store rekey` (encryption/rekey.ts), in one transaction: rows in
   * (session id, seq) order, `after` the last of the batch before (as JSON).
   * @internal
   */
  async rekeyEvents(after: string | undefined, limit: number): Promise<RekeyedBatch> {
    this.#assertOpen();
    const [afterSession, afterSeq] =
      after === undefined ? ["", 0] : (JSON.parse(after) as [string, number]);
    const prefix = sealedPrefix(this.codec.writeKeyId ?? "");
    return this.#withClient("rekey", async (client) => {
      await client.query("BEGIN");
      try {
        const { rows } = await client.query<{
          session_id: string;
          seq: string;
          event_id: string;
          type: string;
          body: string;
        }>(
          `SELECT session_id, seq, event_id, type, body FROM events
           WHERE (session_id, seq) > ($1, $2) ORDER BY session_id, seq LIMIT $3 FOR UPDATE`,
          [afterSession, afterSeq, limit],
        );
        const ids: string[] = [];
        const seqs: number[] = [];
        const bodies: string[] = [];
        for (const row of rows) {
          if (row.body.startsWith(prefix)) continue;
          const where = `${this.description}, session ${row.session_id}`;
          const seq = numberOfColumn(row.seq, where);
          const eventRow = {
            sessionId: row.session_id,
            seq,
            eventId: row.event_id,
            type: row.type,
            body: row.body,
          };
          ids.push(row.session_id);
          seqs.push(seq);
          bodies.push(resealEvent(this.codec, eventRow, where));
        }
        if (ids.length > 0) {
          await client.query(
            `UPDATE events SET body = v.body
             FROM unnest($1::text[], $2::bigint[], $3::text[]) AS v(session_id, seq, body)
             WHERE events.session_id = v.session_id AND events.seq = v.seq`,
            [ids, seqs, bodies],
          );
        }
        await client.query("COMMIT");
        const last = rows.at(-1);
        const next =
          rows.length < limit || last === undefined
            ? undefined
            : JSON.stringify([last.session_id, numberOfColumn(last.seq, this.description)]);
        return { rekeyed: ids.length, next };
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    });
  }

  /** @internal */
  async rekeyTitles(): Promise<number> {
    this.#assertOpen();
    const prefix = sealedPrefix(this.codec.writeKeyId ?? "");
    return this.#withClient("rekey", async (client) => {
      await client.query("BEGIN");
      try {
        const { rows } = await client.query<{ id: string; title: string }>(
          "SELECT id, title FROM sessions WHERE title IS NOT NULL FOR UPDATE",
        );
        let rekeyed = 0;
        for (const { id, title } of rows) {
          if (title.startsWith(prefix)) continue;
          const plain = this.codec.openTitle(id, title, this.description);
          await client.query("UPDATE sessions SET title = $1 WHERE id = $2", [
            this.codec.sealTitle(id, plain),
            id,
          ]);
          rekeyed += 1;
        }
        await client.query("COMMIT");
        return rekeyed;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    });
  }

  /** @internal */
  async dropOldKeyChecks(): Promise<string[] | undefined> {
    const keyId = this.codec.writeKeyId ?? "";
    const prefix = sealedPrefix(keyId);
    const stale = await this.#query<{ stale: boolean }>(
      "rekey",
      `SELECT EXISTS (SELECT 1 FROM events WHERE left(body, $1) <> $2)
           OR EXISTS (SELECT 1 FROM sessions WHERE title IS NOT NULL AND left(title, $1) <> $2)
         AS stale`,
      [prefix.length, prefix],
    );
    if (stale[0]?.stale !== false) return undefined;
    const dropped = await this.#query<{ key_id: string }>(
      "rekey",
      "DELETE FROM store_keys WHERE key_id <> $1 RETURNING key_id",
      [keyId],
    );
    return dropped.map((row) => row.key_id).sort();
  }

  /** A `sessions` row as its record, its title decrypted. */
  #record(row: unknown): SessionRecord {
    const record = sessionOfPostgresRow(row, this.description);
    const title = this.codec.openTitle(record.id, record.title, this.description);
    const { title: _stored, ...rest } = record;
    return title === undefined ? rest : { ...rest, title };
  }

  #assertOpen(): void {
    if (this.#closing !== undefined) {
      throw new UsageError(`the transcript store ${this.description} is closed`);
    }
  }

  async #query<Row extends pg.QueryResultRow = Record<string, unknown>>(
    what: string,
    sql: string,
    values: unknown[] = [],
  ): Promise<Row[]> {
    this.#assertOpen();
    try {
      return (await this.#pool.query<Row>(sql, values)).rows;
    } catch (error) {
      throw storeFailed(this.#target, what, error);
    }
  }

  async #withClient<T>(what: string, use: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    try {
      return await withCheckedOut(this.#pool, use);
    } catch (error) {
      throw storeFailed(this.#target, what, error);
    }
  }
}
