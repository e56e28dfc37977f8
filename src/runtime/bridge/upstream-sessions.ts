/**
 * The user's own OpenCode sessions, made without the bridge (`opencode run`, the TUI, another
 * client of the same data directory or attached server): listed for a directory, and read whole
 * (record and messages) for an import. OpenCode 1.18.33 lists them on its legacy `GET /session`
 * and keeps their history only as legacy messages (`GET /session/{id}/message`).
 */

import { OpencodeApiError, UsageError } from "../../errors.js";
import type { OpencodeClient } from "../../opencode-client/opencode-client.js";
import type { MessageWithParts, Session } from "../../opencode-protocol/legacy/session.js";
import { isWithin } from "../../util/path-within.js";

/** One of the user's OpenCode sessions that the bridge does not keep (`Bridge.upstreamSessions`). */
export interface UpstreamSessionInfo {
  /** OpenCode's session id: what `Bridge.importSession` takes (and the imported session's id). */
  id: string;
  title: string;
  /** The directory it works in. */
  directory: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  updatedAt: number;
}

/** How many sessions one list answers at most (the most recently updated first). */
export const UPSTREAM_SESSIONS_LIMIT = 500;

/** How many messages an imported session may have (its whole history is read and kept at once). */
export const IMPORTED_MESSAGES_LIMIT = 5_000;

/**
 * OpenCode's top-level sessions in `directory` or under it, the most recently updated first,
 * without those `known` says the bridge keeps. Subagents' child sessions are left out: they
 * belong to their parent's turn.
 */
export async function listUpstreamSessions(
  client: OpencodeClient,
  directory: string,
  known: ReadonlySet<string>,
  signal: AbortSignal | undefined,
): Promise<UpstreamSessionInfo[]> {
  // OpenCode groups sessions by project (every directory outside a git repository is the one
  // "global" project), so the list is asked in the directory and then cut to it.
  const sessions = await client.session.list(
    { roots: true },
    { directory, ...(signal === undefined ? {} : { signal }) },
  );
  return sessions
    .filter(
      (session) =>
        session.parentID === undefined &&
        !known.has(session.id) &&
        isWithin(session.directory, directory),
    )
    .sort((a, b) => b.time.updated - a.time.updated)
    .slice(0, UPSTREAM_SESSIONS_LIMIT)
    .map(upstreamInfo);
}

/** A session and its messages, oldest first, for an import. */
export interface UpstreamHistory {
  info: UpstreamSessionInfo;
  messages: MessageWithParts[];
}

/**
 * Reads OpenCode's session `upstreamId` (asked in `directory`) and its whole history. A
 * UsageError for a session OpenCode has not (404), a subagent's child session, or one with more
 * than `IMPORTED_MESSAGES_LIMIT` messages.
 */
export async function readUpstreamSession(
  client: OpencodeClient,
  upstreamId: string,
  directory: string,
  signal: AbortSignal | undefined,
): Promise<UpstreamHistory> {
  const call = signal === undefined ? {} : { signal };
  let session: Session;
  try {
    session = await client.session.get({ sessionID: upstreamId }, { directory, ...call });
  } catch (error) {
    if (error instanceof OpencodeApiError && error.status === 404) {
      throw new UsageError(
        `no OpenCode session ${JSON.stringify(upstreamId)}; list them with upstreamSessions (GET /v1/opencode-sessions)`,
        { cause: error },
      );
    }
    throw error;
  }
  if (session.parentID !== undefined) {
    throw new UsageError(
      `OpenCode session ${upstreamId} is a subagent's child session of ${session.parentID}: import its parent`,
    );
  }
  const messages = await client.session.messages(
    { sessionID: upstreamId, limit: IMPORTED_MESSAGES_LIMIT + 1 },
    { directory: session.directory, ...call },
  );
  if (messages.length > IMPORTED_MESSAGES_LIMIT) {
    throw new UsageError(
      `OpenCode session ${upstreamId} has more than ${IMPORTED_MESSAGES_LIMIT} messages, too many to import`,
    );
  }
  return { info: upstreamInfo(session), messages };
}

function upstreamInfo(session: Session): UpstreamSessionInfo {
  return {
    id: session.id,
    title: session.title,
    directory: session.directory,
    createdAt: session.time.created,
    updatedAt: session.time.updated,
  };
}
