/**
 * Opens the store a spec names: every part of the bridge that opens one (runtime, CLI,
 * sidecar) goes through here, so that a new kind of store is one case more.
 */
import { isPostgresUrl, type PostgresConnectionOptions } from "./postgres/connection.js";
import { SqliteStore } from "./sqlite-store.js";
import type { Store } from "./store.js";

export interface OpenStoreOptions {
  /** Bounds of a Postgres store's connections (ignored for SQLite). */
  postgres?: PostgresConnectionOptions;
}

/**
 * The store `spec` names: `:memory:` or a file path opens a SQLite store (the file created when
 * missing); a `postgres://` or `postgresql://` URL opens a Postgres store on that database (its
 * schema made or migrated; docs/deployment.md).
 */
export async function openStore(spec: string, options: OpenStoreOptions = {}): Promise<Store> {
  if (isPostgresUrl(spec)) {
    // Loaded when asked for: node-postgres costs every start of \`ocb\` ~25 ms otherwise.
    const { PostgresStore } = await import("./postgres-store.js");
    return PostgresStore.open(spec, options.postgres);
  }
  return SqliteStore.open(spec);
}
