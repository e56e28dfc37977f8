/**
 * Undo on an `/api` session: taking it back to before one of its inputs. OpenCode 1.18.33
 * reverts *to* a message: that message is kept and everything after it goes (verified: staging
 * the input's own message kept it, and a text file sent as media then failed every later turn
 * still). So the revert point is the message just before the input's; the first input has
 * none, and OpenCode has no route that empties a session: that case is refused, saying what to
 * do. Staging puts the files back at once and can be cleared (redo) until it is committed
 * (`RevertStageRequest` says what each step does).
 */

import { UsageError } from "../../errors.js";
import type { RevertedFile } from "../../events/canonical.js";
import type { OpencodeClient } from "../../opencode-client/opencode-client.js";
import type { ClientCallOptions } from "../../opencode-client/operation-caller.js";
import { firstFiles, MAX_CHANGED_FILES } from "../file-changes.js";
import { newestFirst } from "./session-messages.js";

/** Files an undo names in its event; the rest are counted (`moreFiles`). */
export const MAX_REVERTED_FILES = MAX_CHANGED_FILES;

/** What an undo put back. */
export interface StagedRevert {
  files: RevertedFile[];
  moreFiles: number;
}

/**
 * Stages the revert that takes back `inputId` and everything after it, files included: the
 * files are back as they were, the messages stay until a commit. Throws a UsageError (before
 * changing anything) when the input is not in the session or is its first message.
 */
export async function stageRevertToBefore(
  client: OpencodeClient,
  sessionID: string,
  inputId: string,
  options: ClientCallOptions,
): Promise<StagedRevert> {
  const point = await messageBefore(client, sessionID, inputId, options);
  const staged = await client.v2.session.revert.stage(
    { sessionID, messageID: point, files: true },
    options,
  );
  const files = (staged.files ?? []).map(
    (file): RevertedFile => ({
      path: file.path,
      status: file.status === "added" || file.status === "deleted" ? file.status : "modified",
      additions: file.additions,
      deletions: file.deletions,
    }),
  );
  return firstFiles(files);
}

/**
 * The input a staged revert took back: the first user message after its point, or undefined
 * when the session has no staged revert (none was made, or it was cleared or committed).
 */
export async function stagedRevertInput(
  client: OpencodeClient,
  sessionID: string,
  options: ClientCallOptions,
): Promise<string | undefined> {
  const point = (await client.v2.session.get({ sessionID }, options)).revert?.messageID;
  if (point === undefined) return undefined;
  let after: string | undefined;
  for await (const message of newestFirst(client, sessionID, options)) {
    if (message.id === point) return after;
    if (message.type === "user") after = message.id;
  }
  return undefined;
}

async function messageBefore(
  client: OpencodeClient,
  sessionID: string,
  inputId: string,
  options: ClientCallOptions,
): Promise<string> {
  let found = false;
  for await (const message of newestFirst(client, sessionID, options)) {
    if (found) return message.id;
    found = message.id === inputId;
  }
  if (!found) {
    throw new UsageError(
      `no input ${inputId} in OpenCode's session ${sessionID} (reverted already?); take the id from an input.admitted event still in the conversation`,
    );
  }
  throw new UsageError(
    `the serve backend cannot revert to before a session's first message: OpenCode reverts to a message it keeps, and the first of its OpenCode session (the session's first input, or the first since it was imported, forked, continued or compacted) has none before it. Fork the session at this input instead for a conversation without it (its file changes stay), or start a new session`,
  );
}
