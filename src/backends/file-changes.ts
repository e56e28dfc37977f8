/**
 * A session's file changes and its working tree's version control, as the backends that can
 * tell them (capabilities.changes) give them to the runtime. The counts are bounded where
 * they enter: a change list names at most `MAX_CHANGED_FILES` files and counts the rest, and
 * a diff is untrusted content (the agent wrote it), cut at `MAX_PATCH_CHARS` per file and
 * `MAX_DIFF_CHARS` in all, with a flag that says so.
 */
import type { FileChange } from "../events/canonical.js";

/** Files a change list names (in an event or an answer); the rest are counted. */
export const MAX_CHANGED_FILES = 200;
/** Characters of one file's unified diff given; a longer one is cut (`patchTruncated`). */
export const MAX_PATCH_CHARS = 64 * 1024;
/** Characters of unified diff given in one answer; the files past it have none (`patchTruncated`). */
export const MAX_DIFF_CHARS = 1024 * 1024;

/**
 * A changed file with its unified diff: what the session's (or the turn's) steps did, from
 * OpenCode's snapshots around them, on a server the bridge manages; on another (attached),
 * the working tree against the last commit, which shows every turn's changes at once.
 */
export interface FileDiff extends FileChange {
  /** The unified diff (`git diff` format); absent for a binary file or one past the bound. */
  patch?: string;
  /** The diff was cut at `MAX_PATCH_CHARS`, or left out past `MAX_DIFF_CHARS`. */
  patchTruncated?: true;
}

/** What a session (or one of its turns) changed. */
export interface SessionChanges {
  /** The changed files, in the order OpenCode reports them (the first `MAX_CHANGED_FILES`). */
  files: FileDiff[];
  /** How many more changed files there are. */
  moreFiles?: number;
}

/** The working tree of a session's directory against its last commit. */
export interface VcsStatus {
  /** The checked-out branch (absent outside a git repository or on a detached HEAD). */
  branch?: string;
  files: FileChange[];
  moreFiles?: number;
}

/** The first `MAX_CHANGED_FILES` of `files`, and how many were left out (0 for none). */
export function firstFiles<F>(files: readonly F[]): { files: F[]; moreFiles: number } {
  return {
    files: files.slice(0, MAX_CHANGED_FILES),
    moreFiles: Math.max(0, files.length - MAX_CHANGED_FILES),
  };
}

/**
 * `files` with their patches bounded: each cut at `MAX_PATCH_CHARS`, and none past
 * `MAX_DIFF_CHARS` in all (those are flagged and carry no patch).
 */
export function boundedPatches(files: readonly FileDiff[]): FileDiff[] {
  let left = MAX_DIFF_CHARS;
  return files.map((file) => {
    const { patch, patchTruncated: _unbounded, ...change } = file;
    if (patch === undefined) return change;
    const cut = patch.length > MAX_PATCH_CHARS ? patch.slice(0, MAX_PATCH_CHARS) : patch;
    if (cut.length > left) return { ...change, patchTruncated: true as const };
    left -= cut.length;
    return cut === patch ? { ...change, patch } : { ...change, patch: cut, patchTruncated: true };
  });
}
