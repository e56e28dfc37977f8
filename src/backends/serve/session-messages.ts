/** Walking an `/api` session's messages (undo looks for an input; the changes view for steps). */
import type { OpencodeClient } from "../../opencode-client/opencode-client.js";
import type { ClientCallOptions } from "../../opencode-client/operation-caller.js";

/** Messages read per page, newest first. */
const PAGE = 50;
/** Pages read at most: a bound on the walk, far past any session a person works in. */
const MAX_PAGES = 200;

/**
 * The session's messages, newest first, a page at a time (at most `MAX_PAGES`). Each keeps the
 * fields OpenCode sent beside `id` and `type` (an assistant message's `snapshot`, say).
 */
export async function* newestFirst(
  client: OpencodeClient,
  sessionID: string,
  options: ClientCallOptions,
): AsyncGenerator<{ id: string; type: string } & Record<string, unknown>> {
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    // A cursor carries its order: the server refuses both together.
    const { data, cursor: next } = await client.v2.session.messages(
      { sessionID, limit: PAGE, ...(cursor === undefined ? { order: "desc" } : { cursor }) },
      options,
    );
    yield* data;
    cursor = next?.next ?? undefined;
    if (cursor === undefined || data.length < PAGE) return;
  }
}
