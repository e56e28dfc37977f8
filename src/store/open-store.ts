/**
 * Opens the store a spec names: every part of the bridge that opens one (runtime, CLI,
 * sidecar) goes through here, so that a new kind of store is one case more.
 */
import { resolveStoreKeys, type StoreKeySource } from "./encryption/store-keys.js";
import { isPostgresUrl, type PostgresConnectionOptions } from "./postgres/connection.js";
import { SqliteStore } from "./sqlite-store.js";
import type { Store } from "./store.js";

export interface OpenStoreOptions {
  /** Bounds of a Postgres store's connections (ignored for SQLite). */
  postgres?: PostgresConnectionOptions;
  /**
   * The keys of an encrypted store (docs/security.md): the text `OCB_STORE_KEY` takes
   * (`id:key,…`, newest first), a `StoreKeyring`, or an async function that fetches either (a
   * KMS-style hook, called once here). A new store opened with keys is encrypted; one without
   * is not; a store opened with keys that do not fit it fails with `UsageError`.
   */
  storeKey?: StoreKeySource | undefined;
}

/**
 * The store `spec` names: `:memory:` or a file path opens a SQLite store (the file created when
 * missing); a `postgres://` or `postgresql://` URL opens a Postgres store on that database (its
 * schema made or migrated; docs/deployment.md).
 */
export async function openStore(spec: string, options: OpenStoreOptions = {}): Promise<Store> {
  const keyring =
    options.storeKey === undefined
      ? undefined
      : await resolveStoreKeys(options.storeKey, "the store key");
  if (isPostgresUrl(spec)) {
    // Loaded when asked for: node-postgres costs every start of \`ocb\` ~25 ms otherwise.
    const { PostgresStore } = await import("./postgres-store.js");
    return PostgresStore.open(spec, options.postgres, { keyring });
  }
  return SqliteStore.open(spec, { keyring });
}
