/**
 * Fuzzy find of a session's files by name, for `@`-mentions (`Session.findFiles`): the query's
 * letters in order anywhere in the path, best matches first. The walk stays inside the session
 * directory: symlinks are listed, never followed, and it stops after a bounded number of
 * entries, so a huge tree or a link loop costs a bounded time.
 */
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { UsageError } from "../../errors.js";
import { throwIfAborted } from "../../util/abort.js";
import { resolveSessionDirectory } from "./inside-directory.js";
import { childPath, entryType, type FileEntryType } from "./list-files.js";

export interface FoundFile {
  /** Relative to the session directory, `/`-separated. */
  path: string;
  type: FileEntryType;
}

export interface FoundFiles {
  /** Best first. */
  files: FoundFile[];
  /** True when the walk stopped at `maxScanned` entries: a file deeper may match too. */
  truncated: boolean;
}

export interface FindFilesOptions {
  /** Most matches answered (default 50). */
  limit?: number;
  /** Most entries looked at (default 20,000). */
  maxScanned?: number;
  signal?: AbortSignal;
}

/** Folders that are never what a mention means, and can hold most of a tree's files. */
const SKIPPED = new Set([".git", "node_modules", ".hg", ".svn"]);

/** The files and directories of `directory` whose path matches `query` fuzzily. */
export async function findFiles(
  directory: string,
  query: string,
  options: FindFilesOptions = {},
): Promise<FoundFiles> {
  const limit = options.limit ?? 50;
  const maxScanned = options.maxScanned ?? 20_000;
  const needle = query.trim().toLowerCase();
  if (needle === "") throw new UsageError("the query is empty; pass a few letters of a file name");
  const dir = await resolveSessionDirectory(directory, "its files cannot be searched");
  const scored: Array<FoundFile & { score: number }> = [];
  // Breadth first: shallow files, the likelier mentions, are seen before the bound.
  const queue: string[] = [""];
  let scanned = 0;
  let truncated = false;
  walk: for (let base = queue.shift(); base !== undefined; base = queue.shift()) {
    throwIfAborted(options.signal, "finding files");
    const entries = await readdir(base === "" ? dir.real : `${dir.real}/${base}`, {
      withFileTypes: true,
    }).catch((): Dirent[] => []); // unreadable: skipped, like an empty one
    for (const entry of entries) {
      if (++scanned > maxScanned) {
        truncated = true;
        break walk;
      }
      const path = childPath(base, entry.name);
      const type = entryType(entry);
      if (type === "directory" && !SKIPPED.has(entry.name)) queue.push(path);
      const score = fuzzyScore(path.toLowerCase(), needle);
      if (score !== undefined) scored.push({ path, type, score });
    }
  }
  scored.sort((a, b) => b.score - a.score || a.path.length - b.path.length);
  return { files: scored.slice(0, limit).map(({ path, type }) => ({ path, type })), truncated };
}

/**
 * How well `needle`'s letters, in order, match `path` (both lower case), or undefined when they
 * do not all appear. Letters in the last segment (the name), runs of consecutive letters and a
 * start at a word boundary count for more.
 */
export function fuzzyScore(path: string, needle: string): number | undefined {
  const nameStart = path.lastIndexOf("/") + 1;
  let score = 0;
  let at = 0;
  let previous = -2;
  for (const letter of needle) {
    const found = path.indexOf(letter, at);
    if (found < 0) return undefined;
    score += 1;
    if (found === previous + 1) score += 3;
    if (found >= nameStart) score += 2;
    if (found === 0 || "/._- ".includes(path[found - 1] ?? "")) score += 2;
    previous = found;
    at = found + 1;
  }
  // A whole-name substring beats letters scattered through it.
  if (path.slice(nameStart).includes(needle)) score += needle.length * 2;
  return score;
}
