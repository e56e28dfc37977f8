/**
 * What a turn itself changed, read from OpenCode's own step snapshots. Verified on 1.18.33 (in
 * a git worktree): each step (an assistant message of `/api/session/{id}/message`) carries
 * `snapshot.start` and `snapshot.end`, git trees of the working tree before and after the step,
 * kept in a git dir of OpenCode's data home, `opencode/snapshot/<project id>/<worktree hash>/`.
 * The diff from a turn's first step's start to its last step's end is that turn's work alone,
 * where the working tree against the last commit shows every turn at once. Only a server whose
 * data home the bridge knows (one it manages) can be read so; for another the callers fall
 * back to the working tree.
 *
 * The snapshot git dir is OpenCode's, and an agent (even a sandboxed one, which may write
 * OpenCode's state) can write into it: git runs here on two trees only (no working tree, so no
 * fsmonitor or hooks), with no diff driver or text conversion (`--no-ext-diff --no-textconv`),
 * none of the user's or the system's config, literal path names, bounded in time and output.
 */
import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { FileChange } from "../../events/canonical.js";
import type { FileDiff } from "../file-changes.js";

/** The trees before a span of steps and after it. */
export interface StepSpan {
  from: string;
  to: string;
}

/** A bound on each git call: a diff of two trees takes milliseconds. */
const GIT_TIMEOUT_MS = 15_000;
/** Output read of one git call; a patch past it is left out (`patchTruncated`). */
const GIT_MAX_OUTPUT = 8 * 1024 * 1024;
/** Snapshot git dirs looked through for a tree: OpenCode keeps one per project and worktree. */
const MAX_GIT_DIRS = 256;
/** A git object name as OpenCode writes it (SHA-1, or SHA-256). */
const TREE_HASH = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** The environment git runs in: none of the user's config, paths taken literally, no pager. */
const GIT_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  LC_ALL: "C",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_LITERAL_PATHSPECS: "1",
  GIT_PAGER: "cat",
  GIT_TERMINAL_PROMPT: "0",
};

export class SnapshotTrees {
  readonly #root: string;
  /** The git dir a tree was last found in: a session's steps all live in one. */
  #found: string | undefined;

  /** `dataHome`: the server's `XDG_DATA_HOME`. */
  constructor(dataHome: string) {
    this.#root = join(dataHome, "opencode", "snapshot");
  }

  /**
   * The files of `paths` that differ between the span's trees, with their lines (and unified
   * diffs, with `patches`), in git's order; undefined when the trees are not found (another
   * server's, or gone) or git cannot tell.
   */
  async diff(
    span: StepSpan,
    paths: readonly string[],
    patches: boolean,
    signal?: AbortSignal,
  ): Promise<FileDiff[] | undefined> {
    if (!TREE_HASH.test(span.from) || !TREE_HASH.test(span.to) || paths.length === 0) {
      return undefined;
    }
    const gitDir = await this.#gitDirOf(span.from, signal);
    if (gitDir === undefined) return undefined;
    const range = [span.from, span.to, "--", ...paths];
    // The three at once: a review of a turn waits for the slowest, not for their sum.
    const [statuses, counts, patchText] = await Promise.all([
      git(gitDir, ["diff", "--name-status", "-z", ...range], signal),
      git(gitDir, ["diff", "--numstat", "-z", ...range], signal),
      patches
        ? git(gitDir, ["diff", "--patch", ...range], signal).catch((error: unknown) => {
            if (isOutputTooLong(error)) return undefined;
            throw error;
          })
        : undefined,
    ]);
    const files = changesOf(statuses, counts);
    if (!patches || files.length === 0) return files;
    const chunks = patchText === undefined ? [] : patchChunks(patchText);
    // One chunk per file, in the same order; anything else is not understood, so left out.
    if (chunks.length !== files.length) {
      return files.map((file) => ({ ...file, patchTruncated: true as const }));
    }
    return files.map((file, index) => {
      const patch = chunks[index] as string;
      return /^Binary files /m.test(patch) ? file : { ...file, patch };
    });
  }

  /** The snapshot git dir that holds `tree` (the last one found is asked first). */
  async #gitDirOf(tree: string, signal: AbortSignal | undefined): Promise<string | undefined> {
    const known = this.#found;
    if (known !== undefined && (await hasTree(known, tree, signal))) return known;
    for (const gitDir of await snapshotGitDirs(this.#root)) {
      if (gitDir !== known && (await hasTree(gitDir, tree, signal))) {
        this.#found = gitDir;
        return gitDir;
      }
    }
    return undefined;
  }
}

/** `<root>/<project id>/<worktree hash>`, the git dirs OpenCode keeps snapshots in. */
async function snapshotGitDirs(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const project of await subdirectories(root)) {
    for (const worktree of await subdirectories(join(root, project))) {
      found.push(join(root, project, worktree));
      if (found.length >= MAX_GIT_DIRS) return found;
    }
  }
  return found;
}

async function subdirectories(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch {
    return [];
  }
}

async function hasTree(gitDir: string, tree: string, signal?: AbortSignal): Promise<boolean> {
  try {
    await git(gitDir, ["cat-file", "-e", `${tree}^{tree}`], signal);
    return true;
  } catch (error) {
    if (signal?.aborted) throw error;
    return false;
  }
}

function git(gitDir: string, args: readonly string[], signal?: AbortSignal): Promise<string> {
  const options = ["--no-pager", "-c", "core.quotepath=on", `--git-dir=${gitDir}`];
  const diffOptions = args[0] === "diff" ? ["--no-ext-diff", "--no-textconv", "--no-color"] : [];
  const [command, ...rest] = args;
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      [...options, command as string, ...diffOptions, ...rest],
      {
        env: GIT_ENV,
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: GIT_MAX_OUTPUT,
        ...(signal === undefined ? {} : { signal }),
      },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    );
  });
}

function isOutputTooLong(error: unknown): boolean {
  return (error as { code?: unknown })?.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER";
}

/** `--name-status -z` and `--numstat -z` of the same diff, as changes (renames are off). */
function changesOf(statuses: string, counts: string): FileChange[] {
  const status = new Map<string, FileChange["status"]>();
  const fields = statuses.split("\0");
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const letter = fields[i] as string;
    status.set(
      fields[i + 1] as string,
      letter === "A" ? "added" : letter === "D" ? "deleted" : "modified",
    );
  }
  const changes: FileChange[] = [];
  for (const entry of counts.split("\0")) {
    const match = /^(-|\d+)\t(-|\d+)\t([\s\S]+)$/.exec(entry);
    if (match === null) continue;
    const [, added, deleted, path] = match as unknown as [string, string, string, string];
    changes.push({
      path,
      status: status.get(path) ?? "modified",
      // A binary file has no lines: git says `-`.
      additions: added === "-" ? 0 : Number(added),
      deletions: deleted === "-" ? 0 : Number(deleted),
    });
  }
  return changes;
}

/**
 * A `git diff --patch` split into one chunk per file. Every file's chunk starts with a
 * `diff --git ` line, and no other line can: a content line starts with ` `, `+`, `-` or `\`,
 * and a path with a line break in it is quoted (`core.quotepath`).
 */
function patchChunks(patch: string): string[] {
  if (patch === "") return [];
  return patch.split(/^(?=diff --git )/m);
}
