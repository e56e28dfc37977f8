/**
 * Where `ocb serve` has the OpenCode server it manages keep its own data (its sessions): kept
 * across stops, so that a session kept in the store can take new turns after `ocb serve` is
 * started again (with a fresh temp dir each time, the new server had no such session).
 */
import { dirname, join, resolve } from "node:path";
import { isPostgresUrl } from "../store/postgres/connection.js";
import { IN_MEMORY } from "../store/sqlite-store.js";

export const OPENCODE_DATA_OPTION_HELP =
  "where the managed OpenCode server keeps its sessions, across restarts (default: the " +
  "directory `opencode` beside a SQLite store file; with a postgres:// or :memory: store, a " +
  "temp dir removed at stop)";

/**
 * `--opencode-data`, else `opencode/` beside a SQLite store file; undefined (a temp dir) for a
 * store in memory or in Postgres (a cluster's sidecars run on several machines: name a local
 * directory for each).
 */
export function opencodeDataDir(option: string | undefined, store: string): string | undefined {
  if (option !== undefined) return resolve(option);
  if (store === IN_MEMORY || store === "" || isPostgresUrl(store)) return undefined;
  return join(dirname(resolve(store)), "opencode");
}
