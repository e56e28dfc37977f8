/**
 * Where `ocb serve` has the OpenCode server it manages keep its own data (its sessions): kept
 * across stops, so that a session kept in the store can take new turns after `ocb serve` is
 * started again (with a fresh temp dir each time, the new server had no such session).
 */
import { createHash } from "node:crypto";
import { dirname, join, resolve } from "node:path";
import { isPostgresUrl, postgresTarget } from "../store/postgres/connection.js";
import { IN_MEMORY } from "../store/sqlite-store.js";
import { bridgeDataDir } from "../util/user-data-dir.js";

export const OPENCODE_DATA_OPTION_HELP =
  "where the managed OpenCode server keeps its sessions, across restarts (default: the " +
  "directory `opencode` beside a SQLite store file; with a postgres:// store, one of its own " +
  "per store in the user's data directory; with :memory:, a temp dir removed at stop)";

/**
 * `--opencode-data`, else `opencode/` beside a SQLite store file, else (a Postgres store) a
 * directory of this machine's for that store: `<user data dir>/opencode/<digest of the URL
 * without its password>`, so that two stores never share one and a password change keeps it.
 * Undefined (a temp dir) for a store in memory only: its sessions end with the process, so
 * there is nothing for kept data to continue.
 */
export function opencodeDataDir(
  option: string | undefined,
  store: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (option !== undefined) return resolve(option);
  if (store === IN_MEMORY || store === "") return undefined;
  if (isPostgresUrl(store)) return join(bridgeDataDir(env), "opencode", postgresStoreDigest(store));
  return join(dirname(resolve(store)), "opencode");
}

/** A short name for a Postgres store: its URL without the password, hashed. */
function postgresStoreDigest(url: string): string {
  const { description } = postgresTarget(url);
  return `postgres-${createHash("sha256").update(description).digest("hex").slice(0, 16)}`;
}
