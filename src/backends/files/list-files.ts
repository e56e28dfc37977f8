/** A directory of a session's files, listed for a file picker (`Session.listFiles`). */
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { relative, sep } from "node:path";
import { UsageError } from "../../errors.js";
import { fileProblem, realPathInside, resolveSessionDirectory } from "./inside-directory.js";

/** What an entry is; a symlink is not followed here (listing or reading it applies the rules). */
export type FileEntryType = "file" | "directory" | "symlink" | "other";

export interface FileEntry {
  name: string;
  /** Relative to the session directory, `/`-separated. */
  path: string;
  type: FileEntryType;
}

export interface FileListing {
  /** The directory listed, relative to the session directory (`""` for itself). */
  path: string;
  /** Directories first, then by name. */
  entries: FileEntry[];
  /** True when the directory held more than `maxEntries`; the rest are left out. */
  truncated: boolean;
}

export const DEFAULT_MAX_LISTED_ENTRIES = 1000;

/** The entries of `path` (relative to `directory`, default the directory itself). */
export async function listFiles(
  directory: string,
  path = "",
  options: { maxEntries?: number } = {},
): Promise<FileListing> {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_LISTED_ENTRIES;
  const dir = await resolveSessionDirectory(directory, "its files cannot be listed");
  const what = `path ${JSON.stringify(path)}`;
  const real = await realPathInside(dir, path, {
    what,
    outsideHint: "only the session directory and what is below it can be listed",
  });
  let dirents: Dirent[];
  try {
    dirents = await readdir(real, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOTDIR") {
      throw new UsageError(`${what} is a file, not a directory; read it with its content route`);
    }
    throw fileProblem(what, real, error);
  }
  const base = relativePath(dir.real, real);
  const entries = dirents
    .map((dirent) => ({
      name: dirent.name,
      path: childPath(base, dirent.name),
      type: entryType(dirent),
    }))
    .sort(
      (a, b) =>
        Number(b.type === "directory") - Number(a.type === "directory") ||
        a.name.localeCompare(b.name),
    );
  return {
    path: base,
    entries: entries.slice(0, maxEntries),
    truncated: entries.length > maxEntries,
  };
}

/** `path` relative to `root`, `/`-separated (`""` for the root itself). */
export function relativePath(root: string, path: string): string {
  return relative(root, path).split(sep).join("/");
}

export function entryType(dirent: Dirent): FileEntryType {
  if (dirent.isSymbolicLink()) return "symlink";
  if (dirent.isDirectory()) return "directory";
  if (dirent.isFile()) return "file";
  return "other";
}

/** The `/` path of `name` in the directory at `base` (`""`: the session directory). */
export function childPath(base: string, name: string): string {
  return base === "" ? name : `${base}/${name}`;
}
