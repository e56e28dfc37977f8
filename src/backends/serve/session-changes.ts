/**
 * What an `/api` session changed, from OpenCode's own accounts. Verified on 1.18.33 (in a git
 * worktree): each assistant message (one step) names the files the step changed in its
 * `snapshot.files`; `/vcs/status` and `/vcs/diff?mode=git` give each changed file of the
 * working tree with its lines (and diff) against the last commit. OpenCode has no per-session
 * or per-turn diff for `/api` sessions (the legacy `GET /session/{id}/diff` answers `[]` for
 * them, and no `session.diff` event comes), so a session's or a turn's changes are the files
 * its steps changed, each as the working tree has it now against the last commit.
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

/**
 * The files the steps of `inputIds`' turns changed (of the whole session when undefined), as
 * OpenCode's step snapshots name them: relative to the repository's root, oldest first.
 */
export async function changedPaths(
  client: OpencodeClient,
  sessionID: string,
  inputIds: ReadonlySet<string> | undefined,
  options: ClientCallOptions,
): Promise<string[]> {
  // Newest first: a step's files belong to the user message that comes next in this walk.
  const found: string[][] = [];
  let sinceInput: string[] = [];
  let inputsLeft = inputIds?.size ?? Number.POSITIVE_INFINITY;
  for await (const message of newestFirst(client, sessionID, options)) {
    if (message.type === "user") {
      if (inputIds === undefined || inputIds.has(message.id)) {
        found.push(sinceInput);
        inputsLeft -= 1;
      }
      sinceInput = [];
      if (inputsLeft === 0) break;
    } else {
      const files = StepSnapshot.safeParse(message).data?.snapshot?.files ?? [];
      sinceInput = [...files, ...sinceInput];
    }
  }
  return [...new Set(found.reverse().flat())];
}

/**
 * The files of `changedPaths`, each with its lines against the last commit (and its diff, with
 * `patches`). A file that no longer differs from the last commit (changed back, or ignored by
 * git) is left out: there is no change of it to show.
 */
export async function sessionChanges(
  client: OpencodeClient,
  sessionID: string,
  scope: { inputIds?: ReadonlySet<string>; patches: boolean },
  options: ClientCallOptions,
): Promise<SessionChanges> {
  const paths = await changedPaths(client, sessionID, scope.inputIds, options);
  if (paths.length === 0) return { files: [] };
  const tree: FileDiff[] = scope.patches
    ? (await client.vcs.diff({ mode: "git" }, options)).map((file) => ({
        ...changeOf(file),
        ...(file.patch === undefined || file.patch === "" ? {} : { patch: file.patch }),
      }))
    : (await client.vcs.status(options)).map(changeOf);
  const byPath = new Map(tree.map((file) => [file.path, file]));
  const changed = paths.flatMap((path) => byPath.get(path) ?? []);
  const { files, moreFiles } = firstFiles(changed);
  return { files: boundedPatches(files), ...(moreFiles === 0 ? {} : { moreFiles }) };
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
