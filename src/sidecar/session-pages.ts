/**
 * Pages of the session list: a store may keep tens of thousands of sessions, and what a
 * client is told of each one costs reads, so the store reads one page and only that page is
 * described. The order is by creation (then id), which a session never changes: a cursor, the
 * last entry of a page, stays valid while sessions come and go.
 */
import type { SessionQuery, SessionRecord } from "../store/store.js";
import { ApiError } from "./errors.js";

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
  readonly records: SessionRecord[];
  /** Where the next page starts; absent on the last page. */
  readonly nextCursor?: string;
}

/** The page `query` asks for, read with `read` (a store's `sessions`). */
export async function sessionPage(
  read: (query: SessionQuery) => Promise<SessionRecord[]>,
  query: SessionPageQuery,
): Promise<SessionPage> {
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  // One more than the page: whether there is a next page, without a count.
  const records = await read({
    directory: query.directory,
    order: query.order,
    after,
    limit: query.limit === undefined ? undefined : query.limit + 1,
  });
  if (query.limit === undefined || records.length <= query.limit) return { records };
  const page = records.slice(0, query.limit);
  const last = page.at(-1);
  return { records: page, ...(last === undefined ? {} : { nextCursor: encodeCursor(last) }) };
}

function encodeCursor(record: SessionRecord): string {
  return Buffer.from(JSON.stringify([record.createdAt, record.id])).toString("base64url");
}

function decodeCursor(cursor: string): { createdAt: number; id: string } {
  try {
    const [createdAt, id] = JSON.parse(
      Buffer.from(cursor, "base64url").toString("utf8"),
    ) as unknown[];
    if (Number.isSafeInteger(createdAt) && typeof id === "string") {
      return { createdAt: createdAt as number, id };
    }
  } catch {
    // said below
  }
  throw new ApiError(
    "invalid_request",
    "cursor is not one this sidecar gave: pass a page's nextCursor as it was, or leave it out to start from the first page",
  );
}
