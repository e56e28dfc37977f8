/**
 * The default project directory of `ocb serve --demo` (no `--dir`): `demo-project/` beside a
 * SQLite store file, kept across stops. Sessions kept in the store name their directory; a temp
 * dir removed at every stop left each of them unable to take a turn after `npm start` was run
 * again. A store in memory or in Postgres keeps nothing here: a temp dir, removed at stop.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { isPostgresUrl } from "../store/postgres/connection.js";
import { IN_MEMORY } from "../store/sqlite-store.js";

/** The folder's name beside the store file. */
export const DEMO_PROJECT = "demo-project";

export interface DemoDirectory {
  path: string;
  /** Removes it when it is a temp dir; a kept one stays. */
  dispose(): void;
}

/** Makes (or finds again) the demo's directory for the store `store` names. */
export function demoDirectory(store: string): DemoDirectory {
  if (store === IN_MEMORY || store === "" || isPostgresUrl(store)) {
    const path = mkdtempSync(join(tmpdir(), "ocb-serve-"));
    return { path, dispose: () => rmSync(path, { recursive: true, force: true }) };
  }
  const path = join(dirname(resolve(store)), DEMO_PROJECT);
  mkdirSync(path, { recursive: true });
  return { path, dispose: () => {} };
}
