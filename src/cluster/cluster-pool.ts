/**
 * The connections of a cluster part (leases, the durable feed): a small pool of its own on the
 * store's database, apart from the store's, so that a heartbeat never waits behind a burst of
 * appends or reads. Opening it brings the schema up to date, as opening the store does, so
 * either may come first.
 */
import type pg from "pg";
import {
  type PostgresConnectionOptions,
  type PostgresTarget,
  postgresTarget,
  storeFailed,
} from "../store/postgres/connection.js";
import { openMigratedPool } from "../store/postgres/migrated-pool.js";

export interface ClusterPool {
  readonly target: PostgresTarget;
  readonly pool: pg.Pool;
  /** Runs one statement; a failure is an `OpencodeBridgeError` naming `what`, no password. */
  query<Row extends pg.QueryResultRow>(
    what: string,
    sql: string,
    values?: unknown[],
  ): Promise<Row[]>;
  end(): Promise<void>;
}

/** Connects to `url`'s database (checking it can) and migrates its schema. */
export async function openClusterPool(
  url: string,
  options: PostgresConnectionOptions & { applicationName: string },
): Promise<ClusterPool> {
  const target = postgresTarget(url, options);
  const pool = await openMigratedPool(target, {
    ...target.config,
    application_name: options.applicationName,
  });
  let ended: Promise<void> | undefined;
  return {
    target,
    pool,
    async query<Row extends pg.QueryResultRow>(what: string, sql: string, values: unknown[] = []) {
      try {
        return (await pool.query<Row>(sql, values)).rows;
      } catch (error) {
        throw storeFailed(target, what, error);
      }
    },
    async end() {
      ended ??= pool.end();
      await ended;
    },
  };
}
