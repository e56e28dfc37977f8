/**
 * The Postgres store's schema, as an ordered list of migrations. The `schema_version` table
 * keeps one row per migration applied; opening a store applies the missing ones in one
 * transaction (Postgres DDL is transactional: a crash mid-way leaves the old schema whole),
 * under an advisory lock so that sidecars opening a new database at once apply them once.
 * Append new migrations; never edit a released one.
 */
import type pg from "pg";
import { UsageError } from "../../errors.js";

export interface PostgresMigration {
  /** 1, 2, 3, …: its place in the list. */
  version: number;
  description: string;
  sql: string;
}

export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    description:
      "sessions; events (JSON bodies, unique per session by seq and by event id); heads (each " +
      "session's last seq and upstream cursor, the row an append locks); servers",
    sql: `
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        backend TEXT NOT NULL,
        upstream_id TEXT,
        directory TEXT NOT NULL,
        title TEXT,
        state TEXT NOT NULL CHECK (state IN ('open', 'released', 'killed')),
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE TABLE events (
        session_id TEXT NOT NULL,
        seq BIGINT NOT NULL,
        event_id TEXT NOT NULL,
        type TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session_id, seq),
        UNIQUE (session_id, event_id)
      );
      CREATE TABLE heads (
        session_id TEXT PRIMARY KEY,
        last_seq BIGINT NOT NULL DEFAULT 0,
        cursor TEXT
      );
      CREATE TABLE servers (key TEXT PRIMARY KEY, body TEXT NOT NULL);
    `,
  },
  {
    version: 2,
    description:
      "leases (the cluster: which sidecar drives each session, until when, with a fencing " +
      "token that grows on every takeover)",
    // holder NULL: released cleanly (nobody to take over from). The row is kept on release so
    // that the token keeps growing: a new row would start again at 1, below a stale holder's.
    sql: `
      CREATE TABLE leases (
        session_id TEXT PRIMARY KEY,
        holder TEXT,
        address TEXT,
        expires_at TIMESTAMPTZ NOT NULL,
        token BIGINT NOT NULL
      );
      CREATE INDEX leases_held_expiry ON leases (expires_at) WHERE holder IS NOT NULL;
    `,
  },
  {
    version: 3,
    description:
      "sends (the cluster: a send's idempotency key, claimed by the driver at admission, with " +
      "the request's fingerprint and the answer, so that a retry through any sidecar finds it)",
    // answer NULL: the claim's send is under way (holder and token say who claimed it).
    // Rows older than the sidecar's idempotency ttl count as absent and are deleted.
    sql: `
      CREATE TABLE sends (
        session_id TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        holder TEXT NOT NULL,
        token BIGINT NOT NULL,
        answer JSONB,
        created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (session_id, key)
      );
      CREATE INDEX sends_created ON sends (created_at);
    `,
  },
  {
    version: 4,
    description:
      "directory_servers (the cluster: which attached OpenCode server serves each directory, " +
      "by URL without credentials; the sidecars attached to it are the ones that drive its sessions)",
    sql: `
      CREATE TABLE directory_servers (
        directory TEXT PRIMARY KEY,
        server TEXT NOT NULL,
        recorded_by TEXT NOT NULL,
        recorded_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 5,
    description: "indexes of the session list's order, overall and per directory (its pages)",
    sql: `
      CREATE INDEX sessions_by_creation ON sessions (created_at, id);
      CREATE INDEX sessions_by_directory ON sessions (directory, created_at, id);
    `,
  },
  {
    version: 6,
    description:
      "store_keys: a known value sealed with each key an encrypted store was written with " +
      "(encryption/key-check.ts); empty in a store without encryption",
    sql: "CREATE TABLE store_keys (key_id TEXT PRIMARY KEY, check_value TEXT NOT NULL);",
  },
];

/** Any fixed number, the same in every process: the lock migrations are applied under. */
const MIGRATION_LOCK = 0x6f6362; // "ocb"

/** The version a database has: the highest applied migration (0 when new). */
export async function schemaVersion(client: pg.ClientBase): Promise<number> {
  // Two statements: a query naming a missing table fails when parsed, whatever its CASE says.
  const exists = await client.query<{ table: string | null }>(
    "SELECT to_regclass('schema_version')::text AS table",
  );
  if (exists.rows[0]?.table == null) return 0;
  const { rows } = await client.query<{ version: number | null }>(
    "SELECT max(version) AS version FROM schema_version",
  );
  return rows[0]?.version ?? 0;
}

/**
 * Brings the database `client` is connected to up to the last of `migrations`. A database
 * written by a newer version is refused: this code would not know what its tables mean.
 */
export async function migratePostgres(
  client: pg.ClientBase,
  where: string,
  migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS,
): Promise<void> {
  const latest = migrations.at(-1)?.version ?? 0;
  const before = await schemaVersion(client);
  refuseNewer(before, latest, where);
  if (before === latest) return;
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_version (
         version INTEGER PRIMARY KEY,
         description TEXT NOT NULL,
         applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
       )`,
    );
    // Read again under the lock: another process may have migrated meanwhile.
    const current = await schemaVersion(client);
    refuseNewer(current, latest, where);
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      await client.query(migration.sql);
      await client.query("INSERT INTO schema_version (version, description) VALUES ($1, $2)", [
        migration.version,
        migration.description,
      ]);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

function refuseNewer(current: number, latest: number, where: string): void {
  if (current <= latest) return;
  throw new UsageError(
    `the transcript store ${where} has schema version ${current}, but this opencode-bridge ` +
      `knows versions up to ${latest}: a newer opencode-bridge wrote it. Upgrade opencode-bridge, ` +
      "or use another database.",
  );
}
