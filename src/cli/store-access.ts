/** How the store commands find and open the transcript store, and name a session in it. */
import { existsSync } from "node:fs";
import { UsageError } from "../errors.js";
import { defaultStorePath } from "../store/default-store-path.js";
import { readStoreKeyFile } from "../store/encryption/key-file.js";
import {
  parseStoreKeys,
  STORE_KEY_ENV,
  type StoreKeyring,
} from "../store/encryption/store-keys.js";
import { openStore } from "../store/open-store.js";
import { isPostgresUrl } from "../store/postgres/connection.js";
import { IN_MEMORY } from "../store/sqlite-store.js";
import type { SessionRecord, Store } from "../store/store.js";

export const STORE_OPTION_HELP =
  "the transcript store: a SQLite file, or a postgres:// URL (docs/deployment.md) (default: " +
  "$OCB_STORE, else $XDG_DATA_HOME/opencode-bridge/store.db, else ~/.local/share/opencode-bridge/store.db)";

export const STORE_KEY_FILE_HELP =
  `a file (mode 0600) with the keys of an encrypted store, newest first (else $${STORE_KEY_ENV}; ` +
  "docs/security.md)";

/** The options of every command that opens the store. */
export interface StoreOptions {
  store?: string | undefined;
  storeKeyFile?: string | undefined;
}

/**
 * The keys to open the store with: `--store-key-file`, else `$OCB_STORE_KEY`, else none (a
 * store that is not encrypted). Given, they must fit the store (encryption/key-check.ts).
 */
export function storeKeyring(
  keyFile: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): StoreKeyring | undefined {
  if (keyFile !== undefined) return readStoreKeyFile(keyFile);
  const fromEnv = env[STORE_KEY_ENV];
  return fromEnv === undefined || fromEnv === ""
    ? undefined
    : parseStoreKeys(fromEnv, STORE_KEY_ENV);
}

/** The environment variable that names the store when `--store` does not. */
export const STORE_ENV = "OCB_STORE";

/** The store the commands use: `--store`, else `$OCB_STORE`, else the default file. */
export function storeSpec(
  option: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string {
  if (option !== undefined) return option;
  const fromEnv = env[STORE_ENV];
  return fromEnv !== undefined && fromEnv !== "" ? fromEnv : defaultStorePath(env);
}

/**
 * Runs `use` on the store `options` name (see `storeSpec`, `storeKeyring`) and closes it; `use` is given the
 * store's name for messages (a URL without its password). Reading never creates a file: a
 * SQLite store that does not exist yet is read as an empty one.
 */
export async function withStore<T>(
  options: StoreOptions,
  mode: "read" | "write",
  use: (store: Store, path: string) => Promise<T>,
): Promise<T> {
  const where = storeSpec(options.store);
  const file = !isPostgresUrl(where) && where !== IN_MEMORY;
  const missing = mode === "read" && file && !existsSync(where);
  const store = await openStore(missing ? IN_MEMORY : where, {
    storeKey: storeKeyring(options.storeKeyFile),
  });
  try {
    return await use(store, file ? where : store.description);
  } finally {
    await store.close();
  }
}

/** The record of session `id`, or a usage error (exit 2) that says how to list the sessions. */
export async function requireSession(
  store: Store,
  id: string,
  path: string,
  storeOption: string | undefined,
): Promise<SessionRecord> {
  const record = await store.session(id);
  if (record !== undefined) return record;
  const list =
    storeOption === undefined
      ? "ocb sessions"
      : `ocb sessions --store ${shellWord(isPostgresUrl(storeOption) ? path : storeOption)}`;
  throw new UsageError(`no session ${JSON.stringify(id)} in ${path}; list them with \`${list}\``);
}

/** `word` as it can be pasted into a shell. */
function shellWord(word: string): string {
  return /^[\w./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
