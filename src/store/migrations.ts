/**
 * The store's schema, as an ordered list of migrations. `PRAGMA user_version` records the last
 * one applied; opening a store applies the ones after it in one transaction, so that a crash
 * mid-way leaves the old schema whole. Append new migrations; never edit a released one.
 */
import type BetterSqlite3 from "better-sqlite3";
import { UsageError } from "../errors.js";

export interface Migration {
  /** 1, 2, 3, …: its place in the list. */
  version: number;
  description: string;
  up(db: BetterSqlite3.Database): void;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description:
      "sessions, events (JSON bodies, unique per session by seq and by event id), cursors",
    up(db) {
      // `events` keeps its rowid: rows land at the end of the table in append order, which
      // made appends from many interleaved sessions ~1.7x faster than a table clustered by
      // (session_id, seq) (WITHOUT ROWID), for about the same replay speed (bench/store.ts).
      db.exec(`
        CREATE TABLE sessions (
          id TEXT PRIMARY KEY,
          backend TEXT NOT NULL,
          upstream_id TEXT,
          directory TEXT NOT NULL,
          title TEXT,
          state TEXT NOT NULL CHECK (state IN ('open', 'released', 'killed')),
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE events (
          session_id TEXT NOT NULL,
          seq INTEGER NOT NULL,
          event_id TEXT NOT NULL,
          type TEXT NOT NULL,
          body TEXT NOT NULL,
          PRIMARY KEY (session_id, seq),
          UNIQUE (session_id, event_id)
        ) STRICT;
        CREATE TABLE cursors (
          session_id TEXT PRIMARY KEY,
          cursor TEXT NOT NULL
        ) STRICT;
      `);
    },
  },
  {
    version: 2,
    description: "servers: the managed servers bridges run, to take them up after a crash",
    up(db) {
      db.exec("CREATE TABLE servers (key TEXT PRIMARY KEY, body TEXT NOT NULL) STRICT;");
    },
  },
  {
    version: 3,
    description: "indexes of the session list's order, overall and per directory (its pages)",
    up(db) {
      db.exec(`
        CREATE INDEX sessions_by_creation ON sessions (created_at, id);
        CREATE INDEX sessions_by_directory ON sessions (directory, created_at, id);
      `);
    },
  },
  {
    version: 4,
    description:
      "store_keys: a known value sealed with each key an encrypted store was written with " +
      "(encryption/key-check.ts); empty in a store without encryption",
    up(db) {
      db.exec(
        "CREATE TABLE store_keys (key_id TEXT PRIMARY KEY, check_value TEXT NOT NULL) STRICT;",
      );
    },
  },
];

/** The schema version a database has (0 when it is new). */
export function schemaVersion(db: BetterSqlite3.Database): number {
  const version = db.pragma("user_version", { simple: true });
  return typeof version === "number" ? version : 0;
}

/**
 * Brings `db` to the last of `migrations`. A database written by a newer version (a higher
 * `user_version`) is refused: this code would not know what its tables mean.
 */
export function migrate(
  db: BetterSqlite3.Database,
  where: string,
  migrations: readonly Migration[] = MIGRATIONS,
): void {
  const latest = migrations.at(-1)?.version ?? 0;
  refuseNewer(schemaVersion(db), latest, where);
  if (schemaVersion(db) === latest) return;
  // IMMEDIATE: of two processes opening a new store at once, the second waits, then finds the
  // version already current and applies nothing.
  db.transaction(() => {
    const current = schemaVersion(db);
    refuseNewer(current, latest, where);
    for (const migration of migrations) {
      if (migration.version > current) migration.up(db);
    }
    db.pragma(`user_version = ${latest}`);
  }).immediate();
}

function refuseNewer(current: number, latest: number, where: string): void {
  if (current <= latest) return;
  throw new UsageError(
    `the transcript store ${where} has schema version ${current}, but this opencode-bridge ` +
      `knows versions up to ${latest}: a newer opencode-bridge wrote it. Upgrade opencode-bridge, ` +
      "or open another store file.",
  );
}
