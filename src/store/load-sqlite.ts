/**
 * better-sqlite3 is a native module: it is loaded when a SQLite store is opened, not when the
 * library is imported, so that a program that brings its own `Store` (or only uses the
 * client) never loads it.
 */

import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";
import { UsageError } from "../errors.js";

/** The package the SQLite store runs on. */
export const SQLITE_PACKAGE = "better-sqlite3";

/** better-sqlite3's `Database` constructor. */
export type DatabaseConstructor = typeof BetterSqlite3;

/**
 * better-sqlite3's `Database`, loaded through `load` (default: Node's `require`
 * from here). Throws UsageError naming the package to install when it is missing.
 */
export function loadBetterSqlite3(
  load: (specifier: string) => unknown = createRequire(import.meta.url),
): DatabaseConstructor {
  let module: unknown;
  try {
    module = load(SQLITE_PACKAGE);
  } catch (error) {
    if (isMissing(error)) {
      throw new UsageError(
        `the SQLite transcript store needs the ${SQLITE_PACKAGE} package, which is not ` +
          `installed: run \`npm install ${SQLITE_PACKAGE}\`, or pass your own \`store\``,
        { cause: error },
      );
    }
    throw new UsageError(`could not load ${SQLITE_PACKAGE}: ${String(error)}`, { cause: error });
  }
  // Node's require caches the module: loading it again per store costs nothing.
  return module as DatabaseConstructor;
}

/** Node's error for a package that is not installed (not one for a file inside it that is missing). */
function isMissing(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error as NodeJS.ErrnoException).code === "MODULE_NOT_FOUND" &&
    error.message.includes(`'${SQLITE_PACKAGE}'`)
  );
}
