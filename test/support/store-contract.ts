/**
 * The guarantees every `Store` gives, as one suite each store runs (SQLite on a file and in
 * memory, Postgres): numbering, idempotence by id, the cursor in the same transaction, a failed
 * commit storing nothing of it, group commit keeping each session's order, read paging, and the
 * session and server records. What only one database has (file modes, WAL, schema refusal)
 * stays in that store's own tests.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UsageError } from "../../src/errors.js";
import { canonical } from "../../src/events/build.js";
import type {
  CanonicalEvent,
  CanonicalEventOf,
  CanonicalType,
} from "../../src/events/canonical.js";
import type { ServerRecord, SessionRecord, Store } from "../../src/store/store.js";

const SESSION = "ses_a";

/** A canonical event of `sessionId` whose id is `id`. */
export function storeEvent<T extends CanonicalType>(
  id: string,
  type: T,
  data: CanonicalEventOf<T>["data"],
  sessionId = SESSION,
): CanonicalEvent {
  const origin = {
    sessionId,
    turnId: "turn_in_1",
    at: 1_800_000_000_000,
    native: { backend: "replay" as const, type, id },
  };
  return { ...canonical(origin, 0, type, data), id } as CanonicalEvent;
}

const started = storeEvent("e1", "turn.started", { inputId: "in_1" });
const delta = storeEvent("e2", "text.delta", { partId: "p1", delta: "hel" });
const ended = storeEvent("e3", "text.ended", { partId: "p1", text: "hello" });
const usage = storeEvent("e4", "usage.updated", {
  usage: {
    tokens: { input: 1, output: 1, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
    cost: 0,
  },
});
const turnEnded = storeEvent("e5", "turn.ended", { outcome: "completed", text: "hello" });

/**
 * An event no store can keep: its data cannot be serialised (a BigInt), so the transaction
 * that carries it fails, as a full disk or a lost connection would fail it.
 */
function unstorable(id: string, sessionId = SESSION): CanonicalEvent {
  const event = storeEvent(id, "text.ended", { partId: "p9", text: "x" }, sessionId);
  return { ...event, data: { ...event.data, poison: 1n } } as unknown as CanonicalEvent;
}

/** A session record with every field. */
export const record: SessionRecord = {
  id: SESSION,
  backend: "serve",
  upstreamId: "ses_upstream",
  directory: "/work/project",
  title: "Fix the login bug",
  state: "open",
  createdAt: 1_800_000_000_000,
  updatedAt: 1_800_000_000_500,
};

const server: ServerRecord = {
  url: "http://127.0.0.1:4096",
  username: "opencode",
  password: "secret",
  pid: 1234,
  root: "/tmp/ocb-opencode-x",
  ownerPid: 99,
  configHash: "abc",
};

const idsAndSeqs = (events: readonly CanonicalEvent[]) => events.map((e) => [e.id, e.seq]);

/** Runs the store contract against the stores `open` makes (a fresh, empty one each test). */
export function describeStoreContract(
  name: string,
  open: () => Promise<Store>,
  cleanup?: () => Promise<void>,
): void {
  describe(`${name}: the Store contract`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
      await cleanup?.();
    });

    it("describes itself", () => {
      expect(typeof store.description).toBe("string");
      expect(store.description.length).toBeGreaterThan(0);
    });

    it("numbers durable events from 1 and continues from the session's last seq", async () => {
      expect(await store.lastSeq(SESSION)).toBe(0);
      const first = await store.append(SESSION, [started, ended]);
      expect(idsAndSeqs(first)).toEqual([
        ["e1", 1],
        ["e3", 2],
      ]);
      const second = await store.append(SESSION, [turnEnded]);
      expect(second.map((stored) => stored.seq)).toEqual([3]);
      expect(await store.lastSeq(SESSION)).toBe(3);
      expect(await store.read(SESSION)).toEqual([...first, ...second]);
      expect((await store.read(SESSION))[1]).toEqual({ ...ended, seq: 2 });
    });

    it("keeps only durable events", async () => {
      const stored = await store.append(SESSION, [started, delta, ended, usage, turnEnded]);
      expect(stored.map((kept) => kept.type)).toEqual(["turn.started", "text.ended", "turn.ended"]);
      expect((await store.read(SESSION)).map((kept) => kept.seq)).toEqual([1, 2, 3]);
      expect(await store.append(SESSION, [delta, usage])).toEqual([]);
      expect(await store.lastSeq(SESSION)).toBe(3);
    });

    it("reads after a seq, at most `limit` events", async () => {
      await store.append(SESSION, [started, ended, turnEnded]);
      const seqs = async (options: { after?: number; limit?: number }) =>
        (await store.read(SESSION, options)).map((kept) => kept.seq);
      expect(await seqs({ after: 1 })).toEqual([2, 3]);
      expect(await seqs({ after: 1, limit: 1 })).toEqual([2]);
      expect(await seqs({ after: 3 })).toEqual([]);
      expect(await seqs({ limit: 0 })).toEqual([]);
      expect(await store.read("ses_unknown")).toEqual([]);
      await expect(store.read(SESSION, { after: -1 })).rejects.toThrow(UsageError);
      await expect(store.read(SESSION, { limit: 1.5 })).rejects.toThrow(UsageError);
    });

    it("pages a long transcript in order", async () => {
      const many = Array.from({ length: 600 }, (_, index) =>
        storeEvent(`m${index}`, "text.ended", { partId: `p${index}`, text: String(index) }),
      );
      await store.append(SESSION, many.slice(0, 300));
      await store.append(SESSION, many.slice(300));
      const read: CanonicalEvent[] = [];
      for (;;) {
        const page = await store.read(SESSION, { after: read.at(-1)?.seq ?? 0, limit: 256 });
        if (page.length === 0) break;
        read.push(...page);
      }
      expect(read.map((kept) => kept.id)).toEqual(many.map((kept) => kept.id));
      expect(read.map((kept) => kept.seq)).toEqual(many.map((_, index) => index + 1));
    });

    it("skips events whose id the session already has, keeping their first seq", async () => {
      await store.append(SESSION, [started, ended]);
      // A resume re-delivers what was already stored, then something new.
      const again = await store.append(SESSION, [started, ended, turnEnded]);
      expect(idsAndSeqs(again)).toEqual([["e5", 3]]);
      expect(await store.append(SESSION, [turnEnded, turnEnded])).toEqual([]);
      expect(idsAndSeqs(await store.read(SESSION))).toEqual([
        ["e1", 1],
        ["e3", 2],
        ["e5", 3],
      ]);
    });

    it("skips a repeated id within one append", async () => {
      const stored = await store.append(SESSION, [started, started, ended]);
      expect(idsAndSeqs(stored)).toEqual([
        ["e1", 1],
        ["e3", 2],
      ]);
    });

    it("numbers each session on its own; the same event id may appear in two", async () => {
      await store.append(SESSION, [started, ended]);
      const other = storeEvent("e1", "turn.started", {}, "ses_b");
      expect((await store.append("ses_b", [other])).map((stored) => stored.seq)).toEqual([1]);
      expect(await store.lastSeq(SESSION)).toBe(2);
      expect(await store.lastSeq("ses_b")).toBe(1);
    });

    it("refuses an event of another session, storing nothing of the call", async () => {
      const stray = storeEvent("x1", "turn.started", {}, "ses_b");
      await expect(store.append(SESSION, [started, stray], "c1")).rejects.toThrow(
        /belongs to session ses_b, not ses_a/,
      );
      expect(await store.lastSeq(SESSION)).toBe(0);
      expect(await store.cursor(SESSION)).toBeUndefined();
    });

    it("saves the cursor with the events, and keeps it until the next one", async () => {
      expect(await store.cursor(SESSION)).toBeUndefined();
      await store.append(SESSION, [started], "41");
      expect(await store.cursor(SESSION)).toBe("41");
      await store.append(SESSION, [ended]);
      expect(await store.cursor(SESSION)).toBe("41");
      // Only ephemeral events (or only re-deliveries) still move the cursor.
      expect(await store.append(SESSION, [delta, started], "43")).toEqual([]);
      expect(await store.cursor(SESSION)).toBe("43");
    });

    it("stores neither the events nor the cursor of a failed commit", async () => {
      await store.append(SESSION, [started], "1");
      await expect(store.append(SESSION, [ended, unstorable("bad")], "2")).rejects.toThrow();
      expect((await store.read(SESSION)).map((kept) => kept.id)).toEqual(["e1"]);
      expect(await store.cursor(SESSION)).toBe("1");
      expect(await store.lastSeq(SESSION)).toBe(1);
      // The store works on, numbering after what is stored.
      expect(idsAndSeqs(await store.append(SESSION, [ended], "2"))).toEqual([["e3", 2]]);
    });

    it("groups concurrent sessions' appends, each keeping its order and dense seqs", async () => {
      const sessions = ["ses_g1", "ses_g2", "ses_g3"];
      const calls = sessions.flatMap((sessionId) =>
        [0, 1, 2].map((call) => {
          const events = [0, 1].map((n) =>
            storeEvent(
              `${sessionId}-${call}-${n}`,
              "text.ended",
              { partId: "p", text: "" },
              sessionId,
            ),
          );
          return store.append(sessionId, events, `${sessionId}:${call}`);
        }),
      );
      const results = await Promise.all(calls);
      // Each call gets only its own events, numbered in the order the calls were made.
      results.forEach((stored, index) => {
        const sessionId = sessions[Math.floor(index / 3)] ?? "";
        const call = index % 3;
        expect(idsAndSeqs(stored)).toEqual([
          [`${sessionId}-${call}-0`, call * 2 + 1],
          [`${sessionId}-${call}-1`, call * 2 + 2],
        ]);
      });
      for (const sessionId of sessions) {
        const seqs = (await store.read(sessionId)).map((kept) => kept.seq);
        expect(seqs).toEqual([1, 2, 3, 4, 5, 6]);
        expect(await store.cursor(sessionId)).toBe(`${sessionId}:2`);
      }
    });

    it("a failed group commit rejects every call it carried and stores none of them", async () => {
      await store.append("ses_ok", [storeEvent("k0", "turn.started", {}, "ses_ok")], "0");
      const good = store.append("ses_ok", [storeEvent("k1", "turn.started", {}, "ses_ok")], "1");
      const bad = store.append("ses_bad", [unstorable("b1", "ses_bad")], "1");
      const outcomes = await Promise.allSettled([good, bad]);
      const rejected = outcomes.filter((outcome) => outcome.status === "rejected").length;
      // Carried together, both fail; a store that happened to commit them apart fails only one.
      expect(rejected).toBeGreaterThanOrEqual(1);
      expect(outcomes[1]?.status).toBe("rejected");
      const kept = (await store.read("ses_ok")).map((event) => event.id);
      expect(kept).toEqual(outcomes[0]?.status === "fulfilled" ? ["k0", "k1"] : ["k0"]);
      expect(await store.read("ses_bad")).toEqual([]);
      expect(await store.cursor("ses_bad")).toBeUndefined();
      // Numbering goes on from what is stored.
      const next = await store.append("ses_ok", [storeEvent("k2", "turn.started", {}, "ses_ok")]);
      expect(next.map((event) => event.seq)).toEqual([kept.length + 1]);
    });

    it("saves, replaces, lists and deletes session records", async () => {
      expect(await store.session(SESSION)).toBeUndefined();
      await store.saveSession(record);
      expect(await store.session(SESSION)).toEqual(record);

      const { title: _title, upstreamId: _upstreamId, ...bare } = record;
      const released: SessionRecord = {
        ...bare,
        state: "released",
        updatedAt: record.updatedAt + 1,
      };
      await store.saveSession(released);
      // Absent optional fields come back absent, not `null` or `undefined`.
      expect(await store.session(SESSION)).toStrictEqual(released);

      const older: SessionRecord = { ...record, id: "ses_0", createdAt: record.createdAt - 1 };
      await store.saveSession(older);
      expect((await store.sessions()).map((session) => session.id)).toEqual(["ses_0", SESSION]);

      await store.append(SESSION, [started], "9");
      await store.deleteSession(SESSION);
      expect(await store.session(SESSION)).toBeUndefined();
      expect(await store.read(SESSION)).toEqual([]);
      expect(await store.cursor(SESSION)).toBeUndefined();
      expect(await store.lastSeq(SESSION)).toBe(0);
      expect((await store.sessions()).map((session) => session.id)).toEqual(["ses_0"]);
      // A session deleted and written again numbers from 1.
      expect((await store.append(SESSION, [started])).map((kept) => kept.seq)).toEqual([1]);
    });

    it("lists one directory's records a page at a time, in either order, after a given one", async () => {
      const made = [
        { id: "ses_c", createdAt: 30, directory: "/p" },
        { id: "ses_a", createdAt: 10, directory: "/p" },
        { id: "ses_b2", createdAt: 20, directory: "/q" },
        { id: "ses_b1", createdAt: 20, directory: "/p" },
      ];
      for (const { id, createdAt, directory } of made) {
        await store.saveSession({ ...record, id, createdAt, updatedAt: createdAt, directory });
      }
      const ids = async (query: Parameters<Store["sessions"]>[0]) =>
        (await store.sessions(query)).map((session) => session.id);
      expect(await ids({})).toEqual(["ses_a", "ses_b1", "ses_b2", "ses_c"]);
      expect(await ids({ order: "newest", limit: 3 })).toEqual(["ses_c", "ses_b2", "ses_b1"]);
      expect(await ids({ directory: "/p" })).toEqual(["ses_a", "ses_b1", "ses_c"]);
      expect(await ids({ after: { createdAt: 20, id: "ses_b1" } })).toEqual(["ses_b2", "ses_c"]);
      expect(
        await ids({ order: "newest", directory: "/p", after: { createdAt: 20, id: "ses_b1" } }),
      ).toEqual(["ses_a"]);
    });

    it("refuses timestamps that are not whole milliseconds", async () => {
      await expect(store.saveSession({ ...record, createdAt: 1.5 })).rejects.toThrow(UsageError);
    });

    it("remembers a managed server by key until it is deleted", async () => {
      expect(await store.server("managed:serve:/p")).toBeUndefined();
      await store.saveServer("managed:serve:/p", server);
      expect(await store.server("managed:serve:/p")).toEqual(server);
      await store.saveServer("managed:serve:/p", { ...server, pid: 5678 });
      expect((await store.server("managed:serve:/p"))?.pid).toBe(5678);
      await store.deleteServer("managed:serve:/p");
      expect(await store.server("managed:serve:/p")).toBeUndefined();
    });

    it("writes pending appends on close, and closes twice without complaint", async () => {
      const pending = store.append(SESSION, [started, ended], "5");
      await store.close();
      expect(idsAndSeqs(await pending)).toEqual([
        ["e1", 1],
        ["e3", 2],
      ]);
      await store.close();
    });
  });
}
