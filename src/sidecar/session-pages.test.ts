/** Pages of the session list, read from a real SQLite store (in memory). */
import { afterAll, describe, expect, it } from "vitest";
import { SqliteStore } from "../store/sqlite-store.js";
import { sessionPage } from "./session-pages.js";

const store = SqliteStore.open(":memory:");
afterAll(() => store.close());
const made: [id: string, createdAt: number, directory: string][] = [
  ["c", 3, "/a"],
  ["a", 1, "/a"],
  ["b2", 2, "/b"],
  ["b1", 2, "/a"],
  ["d", 4, "/b"],
];
for (const [id, createdAt, directory] of made) {
  await store.saveSession({
    id,
    backend: "serve",
    directory,
    state: "open",
    createdAt,
    updatedAt: createdAt,
  });
}
const read = store.sessions.bind(store);

/** Every page, following the cursors. */
async function allPages(limit: number, order?: "oldest" | "newest", directory?: string) {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await sessionPage(read, { limit, cursor, order, directory });
    pages.push(page.records.map((record) => record.id));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return pages;
}

describe("sessionPage", () => {
  it("is every session, oldest first (ties by id), without a limit", async () => {
    const page = await sessionPage(read, {});
    expect(page.records.map((record) => record.id)).toEqual(["a", "b1", "b2", "c", "d"]);
    expect(page.nextCursor).toBeUndefined();
  });

  it("pages follow each other without a gap or a repeat, in either order", async () => {
    expect(await allPages(2)).toEqual([["a", "b1"], ["b2", "c"], ["d"]]);
    expect(await allPages(2, "newest")).toEqual([["d", "c"], ["b2", "b1"], ["a"]]);
    expect(await allPages(5)).toEqual([["a", "b1", "b2", "c", "d"]]);
  });

  it("filters by directory", async () => {
    expect(await allPages(1, "oldest", "/b")).toEqual([["b2"], ["d"]]);
    expect((await sessionPage(read, { directory: "/nowhere" })).records).toEqual([]);
  });

  it("a cursor stays valid when its session is deleted and others are made", async () => {
    const first = await sessionPage(read, { limit: 2 });
    await store.deleteSession("b1");
    await store.saveSession({
      id: "e",
      backend: "serve",
      directory: "/a",
      state: "open",
      createdAt: 5,
      updatedAt: 5,
    });
    const next = await sessionPage(read, { limit: 10, cursor: first.nextCursor });
    expect(next.records.map((record) => record.id)).toEqual(["b2", "c", "d", "e"]);
  });

  it("refuses a cursor it did not give, saying what to pass", async () => {
    await expect(sessionPage(read, { cursor: "not-a-cursor" })).rejects.toThrow(/nextCursor/);
    const forged = Buffer.from(JSON.stringify({ id: 1 })).toString("base64url");
    await expect(sessionPage(read, { cursor: forged })).rejects.toThrow(/nextCursor/);
  });
});
