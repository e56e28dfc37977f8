/**
 * A session made without a title ("+ New session", which makes it before anything is typed)
 * is titled by its first message: once that message is admitted, the session is renamed to
 * its first words (`PATCH /v1/sessions/:id`), so every client of the sidecar shows that name
 * rather than an id or "Untitled session". A session with a title, or with messages already,
 * keeps its name; a failed rename is reported, the session left untitled.
 */
import type { BridgeClient } from "opencode-bridge/client";
import { clientWith } from "./client-with.js";
import { titleFromMessage } from "./session-label.js";

const RENAME_BOUND_MS = 30_000;

export function titleOnFirstSend(
  client: BridgeClient,
  /** Whether `sessionId` has no title and no message yet (read at each send). */
  untitled: (sessionId: string) => boolean,
  onTitled: (sessionId: string) => void,
  onError: (sessionId: string, error: unknown) => void,
): BridgeClient {
  // Titled once per page: a second quick message must not rename it after the first.
  const titled = new Set<string>();
  const send: BridgeClient["send"] = async (sessionId, input, options) => {
    const first = !titled.has(sessionId) && untitled(sessionId);
    const result = await client.send(sessionId, input, options);
    const title = first ? titleFromMessage(input.text) : undefined;
    if (title !== undefined) {
      titled.add(sessionId);
      client
        .renameSession(sessionId, title, { timeoutMs: RENAME_BOUND_MS })
        .then(() => onTitled(sessionId))
        .catch((error: unknown) => onError(sessionId, error));
    }
    return result;
  };
  return clientWith(client, { send });
}
