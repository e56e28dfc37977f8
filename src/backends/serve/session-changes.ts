/**
 * What an `/api` session changed, from OpenCode's own accounts. Verified on 1.18.33 (in a git
 * worktree): each assistant message (one step) names the files the step changed in its
 * `snapshot.files`; `/vcs/status` and `/vcs/diff?mode=git` give each changed file of the
 * working tree with its lines (and diff) against the last commit. OpenCode has no per-session
 * or per-turn diff for `/api` sessions (the legacy `GET /session/{id}/diff` answers `[]` for
 * them, and no `session.diff` event comes), so a session's or a turn's changes are the files
 * its steps changed, each diffed between the snapshots before and after those steps where the
 * bridge can read them (snapshot-trees.ts), else as the working tree has it now against the
 * last commit.
 */
import type { FileChange } from "../../events/canonical.js";
import type { OpencodeClient } from "../../opencode-client/opencode-client.js";
import type { ClientCallOptions } from "../../opencode-client/operation-caller.js";
import { StepSnapshot } from "../../opencode-protocol/api/session.js";
import {
  boundedPatches,
  type FileDiff,
  firstFiles,
  type SessionChanges,
  type VcsStatus,
} from "../file-changes.js";
import { newestFirst } from "./session-messages.js";
import type { SnapshotTrees, StepSpan } from "./snapshot-trees.js";

/** What a span of a session's steps changed: the files they name, and their trees. */
export interface SessionSteps {
  /** The files the steps changed, as OpenCode names them (relative to the repository's root), oldest first. */
  paths: string[];
  /** The tree before the oldest step and after the newest (where OpenCode kept both). */
  span?: StepSpan;
}

/** Which of a session's steps: those of `inputIds`' turns, or all of them. */
export interface StepScope {
  /** The inputs whose turns' steps count (default: every input's). */
  inputIds?: ReadonlySet<string>;
  /** An input an undo took back: it and what followed are not the session's any more. */
  undone?: string;
}

/** The steps of the scope's turns, as OpenCode's step snapshots tell them. */
export async function sessionSteps(
  client: OpencodeClient,
  sessionID: string,
  scope: StepScope,
  options: ClientCallOptions,
): Promise<SessionSteps> {
  const { inputIds, undone } = scope;
  // Newest first: a step belongs to the user message that comes next in this walk.
  const found: string[][] = [];
  let sinceInput: string[] = [];
  let sinceInputSpan: { from?: string | undefined; to?: string | undefined } = {};
  let span: { from?: string | undefined; to?: string | undefined } = {};
  let inputsLeft = inputIds?.size ?? Number.POSITIVE_INFINITY;
  let taken = undone !== undefined;
  for await (const message of newestFirst(client, sessionID, options)) {
    if (taken) {
      taken = message.id !== undone;
      continue;
    }
    if (message.type === "user") {
      if (inputIds === undefined || inputIds.has(message.id)) {
        found.push(sinceInput);
        span = { from: sinceInputSpan.from ?? span.from, to: span.to ?? sinceInputSpan.to };
        inputsLeft -= 1;
      }
      sinceInput = [];
      sinceInputSpan = {};
      if (inputsLeft === 0) break;
    } else {
      const snapshot = StepSnapshot.safeParse(message).data?.snapshot;
      sinceInput = [...(snapshot?.files ?? []), ...sinceInput];
      if (snapshot?.start !== undefined && snapshot.end !== undefined) {
        sinceInputSpan = { from: snapshot.start, to: sinceInputSpan.to ?? snapshot.end };
      }
    }
  }
  const paths = [...new Set(found.reverse().flat())];
  return span.from !== undefined && span.to !== undefined
    ? { paths, span: { from: span.from, to: span.to } }
    : { paths };
}

/**
 * The files of `sessionSteps`, each with its lines (and its diff, with `patches`): between the
 * steps' own trees where `trees` has them (what those steps did), else as the working tree has
 * it now against the last commit (a file that no longer differs from it, changed back or
 * ignored by git, is then left out: there is no change of it to show).
 */
export async function sessionChanges(
  client: OpencodeClient,
  sessionID: string,
  scope: StepScope & { patches: boolean; trees?: SnapshotTrees | undefined },
  options: ClientCallOptions,
): Promise<SessionChanges> {
  const steps = await sessionSteps(client, sessionID, scope, options);
  if (steps.paths.length === 0) return { files: [] };
  const exact =
    scope.trees === undefined || steps.span === undefined
      ? undefined
      : await scope.trees.diff(steps.span, steps.paths, scope.patches, options.signal);
  const changed = exact ?? (await againstLastCommit(client, steps.paths, scope.patches, options));
  const { files, moreFiles } = firstFiles(changed);
  return { files: boundedPatches(files), ...(moreFiles === 0 ? {} : { moreFiles }) };
}

/** The files of `paths` as the working tree has them against its last commit. */
async function againstLastCommit(
  client: OpencodeClient,
  paths: readonly string[],
  patches: boolean,
  options: ClientCallOptions,
): Promise<FileDiff[]> {
  const tree: FileDiff[] = patches
    ? (await client.vcs.diff({ mode: "git" }, options)).map((file) => ({
        ...changeOf(file),
        ...(file.patch === undefined || file.patch === "" ? {} : { patch: file.patch }),
      }))
    : (await client.vcs.status(options)).map(changeOf);
  const byPath = new Map(tree.map((file) => [file.path, file]));
  return paths.flatMap((path) => byPath.get(path) ?? []);
}

/** The working tree of the location against its last commit, and its branch. */
export async function vcsStatus(
  client: OpencodeClient,
  options: ClientCallOptions,
): Promise<VcsStatus> {
  const [info, status] = await Promise.all([client.vcs.get(options), client.vcs.status(options)]);
  const { files, moreFiles } = firstFiles(status.map(changeOf));
  return {
    ...(typeof info.branch === "string" ? { branch: info.branch } : {}),
    files,
    ...(moreFiles === 0 ? {} : { moreFiles }),
  };
}

function changeOf(file: {
  file: string;
  status?: FileChange["status"] | undefined;
  additions: number;
  deletions: number;
}): FileChange {
  return {
    path: file.file,
    status: file.status ?? "modified",
    additions: file.additions,
    deletions: file.deletions,
  };
}
