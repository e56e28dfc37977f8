/**
 * The transcript store on SQLite (better-sqlite3): one file per bridge, WAL so that readers
 * never wait for the writer, events kept as JSON text under (session_id, seq).
 */
import type Database from "better-sqlite3";
import { OpencodeBridgeError, UsageError } from "../errors.js";
import type { CanonicalEvent } from "../events/canonical.js";
import { describeError } from "../util/describe-error.js";
import { checkStoreKeys, type KeyCheckRow } from "./encryption/key-check.js";
import { type RekeyedBatch, resealEvent } from "./encryption/rekey.js";
import type { RowCodec } from "./encryption/row-codec.js";
import { sealedPrefix } from "./encryption/sealing-codec.js";
import type { StoreKeyring } from "./encryption/store-keys.js";
import { loadBetterSqlite3 } from "./load-sqlite.js";
import { migrate } from "./migrations.js";
import { preparePrivateFile, tightenSideFiles } from "./private-files.js";
import { type SessionQuery, sessionQuerySql } from "./session-query.js";
import { SqliteAppends } from "./sqlite-appends.js";
import { sessionOfRow } from "./sqlite-rows.js";
import type { ReadOptions, ServerRecord, SessionRecord, Store } from "./store.js";
import { checkTimestamps, durableEventsFor, readBounds } from "./store-input.js";

/** The path that keeps the store in memory only (for tests and throwaway bridges). */
export const IN_MEMORY = ":memory:";

export interface SqliteStoreOptions {
  /**
   * Encrypts event bodies and titles at rest with these keys (encryption/sealing-codec.ts);
   * without it, the store must not be encrypted.
   */
  keyring?: StoreKeyring | undefined;
}

export class SqliteStore implements Store {
  /** The file (or `:memory:`) this store was opened on. */
  readonly path: string;
  readonly #db: Database.Database;
  readonly #sql: ReturnType<typeof prepare>;
  /** The list queries prepared so far, by their SQL (a handful of shapes). */
  readonly #sessionQueries = new Map<string, Database.Statement>();
  readonly #appends: SqliteAppends;
  readonly #deleteSession: (id: string) => void;
  /**
   * Bodies and titles in clear, or sealed (encryption/row-codec.ts).
   * @internal
   */
  readonly codec: RowCodec;

  private constructor(path: string, db: Database.Database, codec: RowCodec) {
    this.path = path;
    this.#db = db;
    this.codec = codec;
    const sql = prepare(db);
    this.#sql = sql;
    this.#appends = new SqliteAppends(db, codec);
    this.#deleteSession = db.transaction((id: string) => {
      sql.deleteEvents.run(id);
      sql.deleteCursor.run(id);
      sql.deleteSession.run(id);
    }).immediate;
  }

  /**
   * Opens (creating it and its directory when missing) the store at `path`, or an in-memory
   * one for `:memory:`, and brings its schema up to date. The file and its side files are
   * made private (0600), and so are the directories it creates (0700). A path that cannot be opened, or a
   * store written by a newer opencode-bridge, fails with `UsageError`; so does a keyring that
   * does not fit the store (encryption/key-check.ts).
   */
  static open(path: string, options: SqliteStoreOptions = {}): SqliteStore {
    const db = openDatabase(path);
    try {
      migrate(db, path);
      return new SqliteStore(path, db, checkKeys(db, path, options.keyring));
    } catch (error) {
      db.close();
      if (error instanceof OpencodeBridgeError) throw error;
      throw cannotOpen(path, error);
    }
  }

  get description(): string {
    return this.path;
  }

  async append(
    sessionId: string,
    events: readonly CanonicalEvent[],
    cursor?: string,
  ): Promise<CanonicalEvent[]> {
    const durable = durableEventsFor(sessionId, events);
    if (durable.length === 0 && cursor === undefined) return [];
    this.#checkOpen();
    return this.#appends.append(sessionId, durable, cursor);
  }

  async read(sessionId: string, options: ReadOptions = {}): Promise<CanonicalEvent[]> {
    const { after, limit: given } = readBounds(options);
    const limit = given ?? -1;
    const where = `${this.path}, session ${sessionId}`;
    // A negative LIMIT is SQLite's "no limit".
    return this.#sql.readEvents
      .all(sessionId, after, limit)
      .map(([seq, eventId, type, body]) =>
        this.codec.openEvent({ sessionId, seq, eventId, type, body }, where),
      );
  }

  async lastSeq(sessionId: string): Promise<number> {
    const seq = this.#sql.lastSeq.get(sessionId);
    return typeof seq === "number" ? seq : 0;
  }

  async cursor(sessionId: string): Promise<string | undefined> {
    const cursor = this.#sql.cursor.get(sessionId);
    return typeof cursor === "string" ? cursor : undefined;
  }

  async saveServer(key: string, record: ServerRecord): Promise<void> {
    this.#sql.saveServer.run(key, JSON.stringify(record));
  }

  async server(key: string): Promise<ServerRecord | undefined> {
    const body = this.#sql.server.get(key);
    if (typeof body !== "string") return undefined;
    try {
      return JSON.parse(body) as ServerRecord;
    } catch {
      return undefined; // unreadable: as good as none; the bridge starts a new server
    }
  }

  async deleteServer(key: string): Promise<void> {
    this.#sql.deleteServer.run(key);
  }

  async saveSession(record: SessionRecord): Promise<void> {
    checkTimestamps(record);
    this.#sql.saveSession.run({
      id: record.id,
      backend: record.backend,
      upstream_id: record.upstreamId ?? null,
      directory: record.directory,
      title: this.codec.sealTitle(record.id, record.title),
      state: record.state,
      created_at: record.createdAt,
      updated_at: record.updatedAt,
    });
  }

  async session(id: string): Promise<SessionRecord | undefined> {
    const row = this.#sql.session.get(id);
    return row === undefined ? undefined : this.#record(row);
  }

  async sessions(query: SessionQuery = {}): Promise<SessionRecord[]> {
    const { sql, params } = sessionQuerySql(query, () => "?");
    let statement = this.#sessionQueries.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#sessionQueries.set(sql, statement);
    }
    return statement.all(...params).map((row) => this.#record(row));
  }

  async deleteSession(id: string): Promise<void> {
    // Appends queued before it are written first, so that none lands after the delete.
    this.#appends.flush();
    this.#deleteSession(id);
    this.#appends.forget(id);
  }

  async close(): Promise<void> {
    if (!this.#db.open) return;
    this.#appends.flush();
    this.#db.close();
  }

  /**
   * One batch of `ocb store rekey` (encryption/rekey.ts), in one transaction: rows in rowid
   * order, `after` the last rowid of the batch before.
   * @internal
   */
  async rekeyEvents(after: string | undefined, limit: number): Promise<RekeyedBatch> {
    this.#appends.flush();
    const prefix = this.#writePrefix();
    return this.#db
      .transaction(() => {
        const rows = this.#db
          .prepare<[number, number], [number, string, number, string, string, string]>(
            `SELECT rowid, session_id, seq, event_id, type, body FROM events
           WHERE rowid > ? ORDER BY rowid LIMIT ?`,
          )
          .raw()
          .all(Number(after ?? 0), limit);
        const update = this.#db.prepare<[string, number]>(
          "UPDATE events SET body = ? WHERE rowid = ?",
        );
        let rekeyed = 0;
        for (const [rowid, sessionId, seq, eventId, type, body] of rows) {
          if (body.startsWith(prefix)) continue;
          const row = { sessionId, seq, eventId, type, body };
          update.run(resealEvent(this.codec, row, `${this.path}, session ${sessionId}`), rowid);
          rekeyed += 1;
        }
        const last = rows.at(-1);
        return {
          rekeyed,
          next: rows.length < limit || last === undefined ? undefined : String(last[0]),
        };
      })
      .immediate();
  }

  /** @internal */
  async rekeyTitles(): Promise<number> {
    const prefix = this.#writePrefix();
    return this.#db
      .transaction(() => {
        const rows = this.#db
          .prepare<[], [string, string]>("SELECT id, title FROM sessions WHERE title IS NOT NULL")
          .raw()
          .all();
        const update = this.#db.prepare<[string | null, string]>(
          "UPDATE sessions SET title = ? WHERE id = ?",
        );
        let rekeyed = 0;
        for (const [id, title] of rows) {
          if (title.startsWith(prefix)) continue;
          const plain = this.codec.openTitle(id, title, this.path);
          update.run(this.codec.sealTitle(id, plain), id);
          rekeyed += 1;
        }
        return rekeyed;
      })
      .immediate();
  }

  /** @internal */
  async dropOldKeyChecks(): Promise<string[] | undefined> {
    const prefix = this.#writePrefix();
    return this.#db
      .transaction(() => {
        const stale = this.#db
          .prepare<[number, string, number, string]>(
            `SELECT EXISTS (SELECT 1 FROM events WHERE substr(body, 1, ?) <> ?)
               OR EXISTS (SELECT 1 FROM sessions WHERE title IS NOT NULL AND substr(title, 1, ?) <> ?)`,
          )
          .pluck()
          .get(prefix.length, prefix, prefix.length, prefix);
        if (stale === 1) return undefined;
        const old = this.#db
          .prepare<[string]>("SELECT key_id FROM store_keys WHERE key_id <> ? ORDER BY key_id")
          .pluck()
          .all(this.codec.writeKeyId ?? "") as string[];
        this.#db
          .prepare<[string]>("DELETE FROM store_keys WHERE key_id <> ?")
          .run(this.codec.writeKeyId ?? "");
        return old;
      })
      .immediate();
  }

  /** What a value sealed with the newest key starts with. */
  #writePrefix(): string {
    return sealedPrefix(this.codec.writeKeyId ?? "");
  }

  /** A `sessions` row as its record, its title decrypted. */
  #record(row: unknown): SessionRecord {
    const record = sessionOfRow(row, this.path);
    const title = this.codec.openTitle(record.id, record.title, this.path);
    const { title: _stored, ...rest } = record;
    return title === undefined ? rest : { ...rest, title };
  }

  #checkOpen(): void {
    if (!this.#db.open) {
      throw new OpencodeBridgeError(`the transcript store ${this.path} is closed`);
    }
  }
}

function openDatabase(path: string): Database.Database {
  // Loaded here, not at import: see load-sqlite.ts. Missing, it is a UsageError of its own.
  const Sqlite = loadBetterSqlite3();
  let db: Database.Database | undefined;
  try {
    const onDisk = path !== IN_MEMORY && path !== "";
    // It holds whole transcripts (and maybe an earlier version's server password): the owner's only.
    if (onDisk) preparePrivateFile(path);
    db = new Sqlite(path);
    // The first statement reads the file's header: a file that is not a database fails here.
    db.pragma("journal_mode = WAL");
    if (onDisk) tightenSideFiles(path);
    // With WAL, NORMAL loses at most the last commits on a power cut, never consistency.
    db.pragma("synchronous = NORMAL");
    // 32 MiB of page cache (SQLite's default is 2 MiB): sessions streaming at once append to
    // as many places of the two indexes, and with the leaf pages of a thousand sessions in
    // cache a group commit ran 40-60% faster (bench (e)). A cap, not an allocation.
    db.pragma("cache_size = -32768");
    // Checkpoint the WAL every 10,000 pages (about 40 MiB) rather than SQLite's 1,000: each
    // checkpoint syncs the file, and the groups of many sessions fill 1,000 pages in a few
    // commits (bench (e): 110-119k against 93-98k ev/s, back to back). The WAL file stays
    // that size between checkpoints.
    db.pragma("wal_autocheckpoint = 10000");
    // A deleted server record's password (earlier versions wrote one) must not stay in the
    // file's free space for anyone who reads the file later (the secrets scan found it there). Appends
    // delete nothing (the cursor row they rewrite sits in a page they write anyway).
    db.pragma("secure_delete = ON");
    return db;
  } catch (error) {
    db?.close();
    throw cannotOpen(path, error);
  }
}

/** The codec `keyring` opens the store with; a new key's check is written (key-check.ts). */
function checkKeys(
  db: Database.Database,
  path: string,
  keyring: StoreKeyring | undefined,
): RowCodec {
  const check = () => {
    const rows = db
      .prepare('SELECT key_id AS keyId, check_value AS "check" FROM store_keys ORDER BY key_id')
      .all() as KeyCheckRow[];
    const hasContent =
      db
        .prepare("SELECT EXISTS (SELECT 1 FROM events) OR EXISTS (SELECT 1 FROM sessions)")
        .pluck()
        .get() === 1;
    return checkStoreKeys(path, rows, hasContent, keyring);
  };
  // Read without the write lock: most opens find every key checked already and write nothing
  // (a reader such as `ocb sessions` must not wait for a bridge's appends).
  const first = check();
  if (first.add.length === 0) return first.codec;
  // Then again under it (IMMEDIATE): of two processes opening a new store with different keys,
  // only one makes it its own; the other finds that key's check and is refused.
  return db
    .transaction(() => {
      const { codec, add } = check();
      const insert = db.prepare("INSERT INTO store_keys (key_id, check_value) VALUES (?, ?)");
      for (const row of add) insert.run(row.keyId, row.check);
      return codec;
    })
    .immediate();
}

function cannotOpen(path: string, error: unknown): UsageError {
  return new UsageError(
    `cannot open the transcript store ${path}: ${describeError(error)}. Give the path of a ` +
      `SQLite file (created when missing) in a directory this process can write, or ${IN_MEMORY}`,
    { cause: error },
  );
}

function prepare(db: Database.Database) {
  return {
    readEvents: db
      .prepare<[string, number, number], [number, string, string, string]>(
        "SELECT seq, event_id, type, body FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?",
      )
      .raw(),
    lastSeq: db
      .prepare<[string]>("SELECT coalesce(max(seq), 0) FROM events WHERE session_id = ?")
      .pluck(),
    cursor: db.prepare<[string]>("SELECT cursor FROM cursors WHERE session_id = ?").pluck(),
    saveSession: db.prepare<[Record<string, string | number | null>]>(
      `INSERT INTO sessions
         (id, backend, upstream_id, directory, title, state, created_at, updated_at)
       VALUES
         (@id, @backend, @upstream_id, @directory, @title, @state, @created_at, @updated_at)
       ON CONFLICT (id) DO UPDATE SET
         backend = excluded.backend, upstream_id = excluded.upstream_id,
         directory = excluded.directory, title = excluded.title, state = excluded.state,
         created_at = excluded.created_at, updated_at = excluded.updated_at`,
    ),
    session: db.prepare<[string]>("SELECT * FROM sessions WHERE id = ?"),
    deleteEvents: db.prepare<[string]>("DELETE FROM events WHERE session_id = ?"),
    deleteCursor: db.prepare<[string]>("DELETE FROM cursors WHERE session_id = ?"),
    deleteSession: db.prepare<[string]>("DELETE FROM sessions WHERE id = ?"),
    saveServer: db.prepare<[string, string]>(
      `INSERT INTO servers (key, body) VALUES (?, ?)
       ON CONFLICT (key) DO UPDATE SET body = excluded.body`,
    ),
    server: db.prepare<[string]>("SELECT body FROM servers WHERE key = ?").pluck(),
    deleteServer: db.prepare<[string]>("DELETE FROM servers WHERE key = ?"),
  };
}
