import { describe, expect, it } from "vitest";
import { type ListedSession, sessionPage } from "./session-pages.js";

const sessions: ListedSession[] = [
  { id: "c", createdAt: 3, directory: "/a" },
  { id: "a", createdAt: 1, directory: "/a" },
  { id: "b2", createdAt: 2, directory: "/b" },
  { id: "b1", createdAt: 2, directory: "/a" },
  { id: "d", createdAt: 4, directory: "/b" },
];

/** Every page, following the cursors. */
function allPages(limit: number, order?: "oldest" | "newest", directory?: string): string[][] {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = sessionPage(sessions, { limit, cursor, order, directory });
    pages.push(page.ids);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return pages;
}

describe("sessionPage", () => {
  it("is every session, oldest first (ties by id), without a limit and with no cursor", () => {
    expect(sessionPage(sessions, {})).toEqual({ ids: ["a", "b1", "b2", "c", "d"] });
  });

  it("pages follow each other without a gap or a repeat, in either order", () => {
    expect(allPages(2)).toEqual([["a", "b1"], ["b2", "c"], ["d"]]);
    expect(allPages(2, "newest")).toEqual([["d", "c"], ["b2", "b1"], ["a"]]);
    expect(allPages(5)).toEqual([["a", "b1", "b2", "c", "d"]]);
  });

  it("filters by directory", () => {
    expect(allPages(2, "oldest", "/b")).toEqual([["b2", "d"]]);
    expect(sessionPage(sessions, { directory: "/nowhere" })).toEqual({ ids: [] });
  });

  it("a cursor stays valid when its session is deleted and others are made", () => {
    const first = sessionPage(sessions, { limit: 2 });
    const changed = [
      ...sessions.filter((session) => session.id !== "b1"),
      { id: "e", createdAt: 5, directory: "/a" },
    ];
    expect(sessionPage(changed, { limit: 10, cursor: first.nextCursor })).toEqual({
      ids: ["b2", "c", "d", "e"],
    });
  });

  it("refuses a cursor it did not give, saying what to pass", () => {
    expect(() => sessionPage(sessions, { cursor: "not-a-cursor" })).toThrow(/nextCursor/);
    const forged = Buffer.from(JSON.stringify({ id: 1 })).toString("base64url");
    expect(() => sessionPage(sessions, { cursor: forged })).toThrow(/nextCursor/);
  });
});
