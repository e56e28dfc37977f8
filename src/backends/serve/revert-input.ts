/**
 * Reverting an `/api` session to before one of its inputs. OpenCode 1.18.33 reverts *to* a
 * message: that message is kept and everything after it goes (verified: staging the input's
 * own message kept it, and a text file sent as media then failed every later turn still). So
 * the revert point is the message just before the input's; the first input has none, and
 * OpenCode has no route that empties a session: that case is refused, saying what to do.
 */

import { UsageError } from "../../errors.js";
import type { OpencodeClient } from "../../opencode-client/opencode-client.js";
import type { ClientCallOptions } from "../../opencode-client/operation-caller.js";

/** Messages read per page while looking for the input, newest first. */
const PAGE = 50;
/** Pages read at most: a bound on the walk, far past any session a person reverts in. */
const MAX_PAGES = 200;

/**
 * Stages and commits the revert that takes back `inputId` and everything after it, files
 * included. Throws a UsageError (before changing anything) when the input is not in the
 * session or is its first message.
 */
export async function revertToBefore(
  client: OpencodeClient,
  sessionID: string,
  inputId: string,
  options: ClientCallOptions,
): Promise<void> {
  const point = await messageBefore(client, sessionID, inputId, options);
  await client.v2.session.revert.stage({ sessionID, messageID: point, files: true }, options);
  await client.v2.session.revert.commit({ sessionID }, options);
}

async function messageBefore(
  client: OpencodeClient,
  sessionID: string,
  inputId: string,
  options: ClientCallOptions,
): Promise<string> {
  let cursor: string | undefined;
  let found = false;
  for (let page = 0; page < MAX_PAGES; page++) {
    // A cursor carries its order: the server refuses both together.
    const { data, cursor: next } = await client.v2.session.messages(
      { sessionID, limit: PAGE, ...(cursor === undefined ? { order: "desc" } : { cursor }) },
      options,
    );
    for (const message of data) {
      if (found) return message.id;
      found = message.id === inputId;
    }
    cursor = next?.next ?? undefined;
    if (cursor === undefined || data.length < PAGE) break;
  }
  if (!found) {
    throw new UsageError(
      `no input ${inputId} in OpenCode's session ${sessionID} (reverted already?); take the id from an input.admitted event still in the conversation`,
    );
  }
  throw new UsageError(
    `the serve backend cannot revert to before a session's first message: OpenCode reverts to a message it keeps, and the first has none before it. Start a new session instead`,
  );
}
