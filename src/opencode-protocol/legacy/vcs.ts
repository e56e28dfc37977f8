/**
 * The working tree's version control (`/vcs/*`) and a session's todo list
 * (`/session/{id}/todo`), legacy routes that serve `/api` sessions too (verified on 1.18.33).
 */
import { z } from "zod";
import { Todo } from "../common.js";

/** `GET /vcs`: the checked-out branch (1.18.33: `null` both outside a git repository). */
export const VcsInfo = z.looseObject({
  branch: z.string().nullable().optional(),
  default_branch: z.string().nullable().optional(),
});
export type VcsInfo = z.infer<typeof VcsInfo>;

const FileStatus = z.enum(["added", "deleted", "modified"]);

/** One changed file of `GET /vcs/status`, with its lines against the last commit. */
export const VcsFileStatus = z.looseObject({
  file: z.string(),
  additions: z.number(),
  deletions: z.number(),
  status: FileStatus,
});
export type VcsFileStatus = z.infer<typeof VcsFileStatus>;

/** One file of `GET /vcs/diff`: as `VcsFileStatus`, with its unified diff (`patch`). */
export const VcsFileDiff = z.looseObject({
  file: z.string(),
  patch: z.string().optional(),
  additions: z.number(),
  deletions: z.number(),
  status: FileStatus.optional(),
});
export type VcsFileDiff = z.infer<typeof VcsFileDiff>;

/**
 * `GET /vcs/diff` query: `git` is the working tree against HEAD (what `git diff HEAD` shows,
 * new files included), `branch` against the default branch; `context` lines around each hunk.
 */
export const VcsDiffQuery = z.strictObject({
  mode: z.enum(["git", "branch"]),
  context: z.number().int().min(0).optional(),
});

export const TodoList = z.array(Todo);
