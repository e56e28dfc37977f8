/** How the store commands find and open the transcript store, and name a session in it. */
import { existsSync } from "node:fs";
import { UsageError } from "../errors.js";
import { defaultStorePath } from "../store/default-store-path.js";
import { openStore } from "../store/open-store.js";
import { isPostgresUrl } from "../store/postgres/connection.js";
import { IN_MEMORY } from "../store/sqlite-store.js";
import type { SessionRecord, Store } from "../store/store.js";

export const STORE_OPTION_HELP =
  "the transcript store: a SQLite file, or a postgres:// URL (docs/deployment.md) (default: " +
  "$OCB_STORE, else $XDG_DATA_HOME/opencode-bridge/store.db, else ~/.local/share/opencode-bridge/store.db)";

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
 * Runs `use` on the store `path` names (see `storeSpec`) and closes it; `use` is given the
 * store's name for messages (a URL without its password). Reading never creates a file: a
 * SQLite store that does not exist yet is read as an empty one.
 */
export async function withStore<T>(
  path: string | undefined,
  mode: "read" | "write",
  use: (store: Store, path: string) => Promise<T>,
): Promise<T> {
  const where = storeSpec(path);
  const file = !isPostgresUrl(where) && where !== IN_MEMORY;
  const missing = mode === "read" && file && !existsSync(where);
  const store = await openStore(missing ? IN_MEMORY : where);
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
