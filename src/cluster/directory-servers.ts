/**
 * Which OpenCode server serves each directory of a cluster (docs/deployment.md, "What runs
 * where"): a row per directory in `directory_servers` (schema version 4), the attached
 * server's URL without credentials. A sidecar drives only the sessions of directories its own
 * server serves: an OpenCode session lives in one server's storage, so a sidecar attached to
 * another server could not adopt it. The first sidecar to use a directory records its server
 * for it; nothing else changes a record (a directory that moved is re-pointed by hand).
 * Passwords are never stored here: every sidecar of a server has that server's password.
 */
import type { PostgresConnectionOptions } from "../store/postgres/connection.js";
import { type ClusterPool, openClusterPool } from "./cluster-pool.js";

/** A directory's record. */
export interface DirectoryServer {
  directory: string;
  /** The server's URL (`serverKey`: no credentials, no trailing slash). */
  server: string;
  /** The cluster id of the sidecar that recorded it. */
  recordedBy: string;
  /** Milliseconds since the epoch (the database's clock). */
  recordedAt: number;
}

/**
 * How a server is named in the record: its URL without user, password or trailing slash, so
 * that a credential never reaches the table or a message, and `http://h:1/` equals `http://h:1`.
 */
export function serverKey(url: string): string {
  const parsed = new URL(url);
  parsed.username = "";
  parsed.password = "";
  return parsed.href.replace(/\/$/, "");
}

export class DirectoryServers {
  /** The server this sidecar is attached to (`serverKey`). */
  readonly server: string;
  readonly #holderId: string;
  readonly #db: ClusterPool;

  private constructor(db: ClusterPool, server: string, holderId: string) {
    this.#db = db;
    this.server = serverKey(server);
    this.#holderId = holderId;
  }

  /** Connects to the store's database `url`; `server` is this sidecar's attached server. */
  static async open(
    url: string,
    options: PostgresConnectionOptions & { server: string; holderId: string },
  ): Promise<DirectoryServers> {
    // Read on a create, an open or a takeover: one connection, closed when idle.
    const db = await openClusterPool(url, {
      ...options,
      maxConnections: options.maxConnections ?? 1,
      applicationName: "opencode-bridge directories",
    });
    return new DirectoryServers(db, options.server, options.holderId);
  }

  /** The directory's record, if one was made. */
  async recorded(directory: string): Promise<DirectoryServer | undefined> {
    const rows = await this.#db.query<{
      server: string;
      recorded_by: string;
      recorded_at: Date;
    }>(
      "reading which server serves a directory",
      "SELECT server, recorded_by, recorded_at FROM directory_servers WHERE directory = $1",
      [directory],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    return {
      directory,
      server: row.server,
      recordedBy: row.recorded_by,
      recordedAt: row.recorded_at.getTime(),
    };
  }

  /**
   * The directory's record, made first with this sidecar's server if there is none (two
   * sidecars racing: the first insert wins, and both read the winner's record).
   */
  async claim(directory: string): Promise<DirectoryServer> {
    const found = await this.recorded(directory);
    if (found !== undefined) return found;
    await this.#db.query(
      "recording which server serves a directory",
      `INSERT INTO directory_servers (directory, server, recorded_by) VALUES ($1, $2, $3)
       ON CONFLICT (directory) DO NOTHING`,
      [directory, this.server, this.#holderId],
    );
    // A new statement, a new snapshot: it sees whichever insert won.
    const recorded = await this.recorded(directory);
    if (recorded === undefined) {
      throw new Error(`the record of directory ${directory} vanished as it was made`);
    }
    return recorded;
  }

  async close(): Promise<void> {
    await this.#db.end();
  }
}
