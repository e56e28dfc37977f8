/**
 * better-sqlite3 is loaded only when a SQLite store is opened: importing the library's root
 * entry does not load it (checked in a child process, whose module cache starts empty), and a
 * missing package is a UsageError naming it.
 */
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { loadBetterSqlite3, SQLITE_PACKAGE } from "./load-sqlite.js";

/** Imports `entry`, opens a store from it if asked, and prints which better-sqlite3 files were loaded. */
const PROBE = `
import { createRequire } from "node:module";
const [entry, open] = process.argv.slice(1);
const module = await import(entry);
if (open === "open") module.SqliteStore.open(":memory:").close();
const cache = Object.keys(createRequire(import.meta.url).cache);
console.log(JSON.stringify(cache.filter((file) => file.includes("better-sqlite3"))));
`;

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function loadedAfter(entry: string, open: boolean): string[] {
  const out = execFileSync(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", PROBE, entry, open ? "open" : "no"],
    { encoding: "utf8", timeout: 60_000, cwd: ROOT },
  );
  return JSON.parse(out.trim().split("\n").at(-1) ?? "[]") as string[];
}

describe("loading better-sqlite3", () => {
  it("importing the root entry does not load it; opening a SQLite store does", () => {
    expect(loadedAfter("./src/index.ts", false)).toEqual([]);
    // The probe itself can see the package load: the first check is not vacuous.
    expect(loadedAfter("./src/store/sqlite-store.ts", true).length).toBeGreaterThan(0);
  });

  it("a missing package is a UsageError that names it and says how to install it", () => {
    const absent = createRequire("/nonexistent/dir/here.js");
    let error: unknown;
    try {
      loadBetterSqlite3(absent);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(`npm install ${SQLITE_PACKAGE}`);
  });
});
