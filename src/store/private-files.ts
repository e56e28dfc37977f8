/**
 * The store holds whole transcripts (and, written by earlier versions, a managed server's
 * password): its file, SQLite's side files and the directory made for them are readable by
 * their owner only.
 */
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { defaultStorePath } from "./default-store-path.js";

/** Owner read and write. */
export const PRIVATE_FILE_MODE = 0o600;
/** Owner read, write and enter. */
export const PRIVATE_DIRECTORY_MODE = 0o700;

/** SQLite's side files of a database in WAL mode (and a rollback journal, if one is left). */
const SIDE_FILE_SUFFIXES = ["-wal", "-shm", "-journal"] as const;

/**
 * Prepares `path` before SQLite opens it: directories that are missing are made private, and
 * so is the default store's directory when it exists already (a directory the caller named is
 * theirs: it is left as it is); the file is created private, or tightened if it exists.
 */
export function preparePrivateFile(path: string): void {
  const directory = dirname(path);
  mkdirSync(directory, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  if (resolve(path) === resolve(defaultStorePath())) {
    chmodSync(directory, PRIVATE_DIRECTORY_MODE);
  }
  const existing = statSync(path, { throwIfNoEntry: false });
  if (existing === undefined) closeSync(openSync(path, "a", PRIVATE_FILE_MODE));
  // Anything but a file (a directory, say) is left for SQLite to refuse with its own words.
  else if (existing.isFile()) chmodSync(path, PRIVATE_FILE_MODE);
  tightenSideFiles(path);
}

/**
 * SQLite creates its WAL and shared-memory files with the database file's mode, so new ones
 * are private; ones left by an older bridge (made before the file was tightened) are not.
 */
export function tightenSideFiles(path: string): void {
  for (const suffix of SIDE_FILE_SUFFIXES) {
    try {
      chmodSync(`${path}${suffix}`, PRIVATE_FILE_MODE);
    } catch (error) {
      // None, or gone since: SQLite removes them when another process's last connection closes.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
}
