/**
 * Pages of the session list: a store may keep tens of thousands of sessions, and what a
 * client is told of each one costs reads, so the list is cut before it is described. The
 * order is by creation (then id), which a session never changes: a cursor, the last entry of
 * a page, stays valid while sessions come and go.
 */
import { ApiError } from "./errors.js";

/** What the list is sorted and filtered on, per session. */
export interface ListedSession {
  readonly id: string;
  readonly createdAt: number;
  readonly directory: string;
}

export interface SessionPageQuery {
  /** Only the sessions made in this directory. */
  directory?: string | undefined;
  /** At most this many (default: all). */
  limit?: number | undefined;
  /** A previous page's `nextCursor`: the sessions after its last one. */
  cursor?: string | undefined;
  /** `oldest` first (the default) or `newest` first. */
  order?: "oldest" | "newest" | undefined;
}

export interface SessionPage {
  readonly ids: string[];
  /** Where the next page starts; absent on the last page. */
  readonly nextCursor?: string;
}

export function sessionPage(
  sessions: readonly ListedSession[],
  query: SessionPageQuery,
): SessionPage {
  const newest = query.order === "newest";
  const sorted = sessions
    .filter((session) => query.directory === undefined || session.directory === query.directory)
    .sort((a, b) => (newest ? -1 : 1) * compare(a, b));
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const rest =
    after === undefined
      ? sorted
      : sorted.filter((session) => (newest ? -1 : 1) * compare(session, after) > 0);
  const page = query.limit === undefined ? rest : rest.slice(0, query.limit);
  const last = page.at(-1);
  return {
    ids: page.map((session) => session.id),
    ...(last === undefined || page.length === rest.length
      ? {}
      : { nextCursor: encodeCursor(last) }),
  };
}

function compare(
  a: Pick<ListedSession, "createdAt" | "id">,
  b: Pick<ListedSession, "createdAt" | "id">,
): number {
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function encodeCursor(session: ListedSession): string {
  return Buffer.from(JSON.stringify([session.createdAt, session.id])).toString("base64url");
}

function decodeCursor(cursor: string): Pick<ListedSession, "createdAt" | "id"> {
  try {
    const [createdAt, id] = JSON.parse(
      Buffer.from(cursor, "base64url").toString("utf8"),
    ) as unknown[];
    if (typeof createdAt === "number" && typeof id === "string") return { createdAt, id };
  } catch {
    // said below
  }
  throw new ApiError(
    "invalid_request",
    "cursor is not one this sidecar gave: pass a page's nextCursor as it was, or leave it out to start from the first page",
  );
}
