/**
 * Following sessions from another process, on a real Postgres: a writer store in one pool and
 * a feed reading through a store in another (as two sidecars). Every follower ends with exactly
 * the store's list while the LISTEN connection is cut again and again (notices lost while it
 * is down), events written without a notice reach followers by the slow poll, and a session
 * whose id is too long to name in a notice is still followed.
 */
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { storeEvent } from "../../test/support/store-contract.js";
import { K1_TEXT, keyring, PLANTED } from "../../test/support/store-keys.js";
import { usePostgres } from "../../test/support/use-postgres.js";
import { within } from "../../test/support/within.js";
import { UsageError } from "../errors.js";
import type { CanonicalEvent } from "../events/canonical.js";
import { PostgresStore } from "../store/postgres-store.js";
import { DurableFeed, type DurableFeedOptions } from "./durable-feed.js";

const postgres = usePostgres();
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Sidecars {
  url: string;
  writer: PostgresStore;
  reader: PostgresStore;
  feed: DurableFeed;
  admin: pg.Client;
}

async function twoSidecars(options: DurableFeedOptions = {}): Promise<Sidecars> {
  const url = await postgres.freshDatabase();
  const writer = await PostgresStore.open(url);
  cleanups.push(() => writer.close());
  const reader = await PostgresStore.open(url);
  cleanups.push(() => reader.close());
  const feed = await DurableFeed.open(url, reader, options);
  cleanups.push(() => feed.close());
  const admin = new pg.Client({ connectionString: url });
  admin.on("error", () => {});
  await admin.connect();
  cleanups.push(() => admin.end());
  return { url, writer, reader, feed, admin };
}

/** Reads a follow until it reached `lastSeq`, then stops it; gives what it read. */
function collect(
  feed: DurableFeed,
  sessionId: string,
  options: { after?: number; pageSize?: number },
): { events: CanonicalEvent[]; until(lastSeq: number): Promise<CanonicalEvent[]> } {
  const events: CanonicalEvent[] = [];
  const stop = new AbortController();
  let target = Number.POSITIVE_INFINITY;
  let reached: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const reading = (async () => {
    for await (const event of feed.follow(sessionId, { ...options, signal: stop.signal })) {
      events.push(event);
      if ((event.seq ?? 0) >= target) reached();
    }
  })();
  return {
    events,
    async until(lastSeq) {
      target = lastSeq;
      if ((events.at(-1)?.seq ?? options.after ?? 0) >= lastSeq) reached();
      await within(done, `follower of ${sessionId} reaching seq ${lastSeq}`, 30_000);
      stop.abort();
      await reading;
      return events;
    },
  };
}

/** A small seeded generator: the same cuts and batches on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

const textEvent = (sessionId: string, id: string) =>
  storeEvent(id, "text.ended", { partId: id, text: id }, sessionId);

describe("DurableFeed", () => {
  it("follows an encrypted store's sessions, the sidecars sharing its key", async () => {
    const url = await postgres.freshDatabase();
    const keys = { keyring: keyring(K1_TEXT) };
    const writer = await PostgresStore.open(url, {}, keys);
    cleanups.push(() => writer.close());
    const reader = await PostgresStore.open(url, {}, keys);
    cleanups.push(() => reader.close());
    const feed = await DurableFeed.open(url, reader, {});
    cleanups.push(() => feed.close());
    const follow = collect(feed, "ses_enc", { after: 0 });
    const written = await writer.append("ses_enc", [
      textEvent("ses_enc", "e1"),
      storeEvent("e2", "text.ended", { partId: "p", text: PLANTED }, "ses_enc"),
    ]);
    expect(await follow.until(2)).toEqual(written);
  });

  it("gives every follower exactly the store's events while its LISTEN connection is cut again and again", async () => {
    // No poll to lean on: only notices and the catch-up after each reconnection.
    const { writer, reader, feed, admin } = await twoSidecars({ pollEveryMs: 600_000 });
    const random = seeded(16);
    const sessions = Array.from({ length: 24 }, (_, index) => `ses_${index}`);
    const followers = sessions.flatMap((id, index) => [
      { id, after: 0, follow: collect(feed, id, { after: 0, pageSize: 1 + (index % 7) * 40 }) },
      { id, after: 5, follow: collect(feed, id, { after: 5 }) },
    ]);
    // One LISTEN connection for the 48 followers of 24 sessions.
    await within(
      (async () => {
        while (feed.listenerPid === undefined)
          await new Promise((resolve) => setTimeout(resolve, 20));
      })(),
      "the LISTEN connection",
    );
    // Of this test's database: the tests' Postgres serves other files' feeds at the same time.
    const { rows } = await admin.query<{ count: string }>(
      `SELECT count(*) FROM pg_stat_activity
       WHERE application_name = 'opencode-bridge listen' AND datname = current_database()`,
    );
    expect(rows[0]?.count).toBe("1");
    let cuts = 0;
    let writing = true;
    const cutting = (async () => {
      while (writing) {
        const pid = feed.listenerPid;
        if (pid !== undefined) {
          await admin.query("SELECT pg_terminate_backend($1)", [pid]);
          cuts += 1;
        }
        await new Promise((resolve) => setTimeout(resolve, 20 + random() * 60));
      }
    })();
    let written = 0;
    // At least 4,000 events, and on until the connection was cut a few times while they are
    // written (a fast writer could otherwise finish before the fourth cut); bounded, so that
    // a cutter that never cuts fails the assertion below instead of writing forever.
    while ((written < 4_000 || cuts <= 3) && written < 40_000) {
      const appends: Promise<CanonicalEvent[]>[] = [];
      for (let call = 0; call < 20; call++) {
        const id = sessions[Math.floor(random() * sessions.length)] ?? "ses_0";
        const batch = Array.from({ length: 1 + Math.floor(random() * 4) }, () =>
          textEvent(id, `e${written++}`),
        );
        appends.push(writer.append(id, batch));
      }
      await Promise.all(appends);
    }
    writing = false;
    await cutting;
    expect(cuts).toBeGreaterThan(3);
    for (const { id, after, follow } of followers) {
      const stored = await reader.read(id, { after });
      const got = await follow.until(await writer.lastSeq(id));
      expect(got, `follower of ${id} after ${after}`).toEqual(stored);
    }
  });

  it("finds events written without a notice by its slow poll", async () => {
    const { writer, feed, admin } = await twoSidecars({ pollEveryMs: 100 });
    await writer.append("ses_quiet", [textEvent("ses_quiet", "e1")]);
    const follow = collect(feed, "ses_quiet", {});
    // A writer that bypasses the announcement (an older tool, a hand-made fix).
    await admin.query(
      `INSERT INTO events (session_id, seq, event_id, type, body) VALUES ('ses_quiet', 2, 'e2', $1, $2)`,
      ["text.ended", JSON.stringify({ ...textEvent("ses_quiet", "e2"), seq: 2 })],
    );
    await admin.query("UPDATE heads SET last_seq = 2 WHERE session_id = 'ses_quiet'");
    const got = await follow.until(2);
    expect(got.map((event) => [event.seq, event.id])).toEqual([
      [1, "e1"],
      [2, "e2"],
    ]);
  });

  it("follows a session whose id is too long to name in a notice", async () => {
    const { writer, feed } = await twoSidecars({ pollEveryMs: 600_000 });
    const long = `ses_${"x".repeat(7_500)}`;
    const follow = collect(feed, long, {});
    await new Promise((resolve) => setTimeout(resolve, 200)); // read its (empty) start
    await writer.append(long, [textEvent(long, "e1")]);
    await writer.append(long, [textEvent(long, "e2"), textEvent(long, "e3")]);
    expect((await follow.until(3)).map((event) => event.id)).toEqual(["e1", "e2", "e3"]);
  });

  it("reads again when the store fails for a while, and gives up with a clear error after its bound", async () => {
    const { url, writer, reader } = await twoSidecars();
    let failures = 3;
    const flaky = {
      read: (...args: Parameters<PostgresStore["read"]>) => {
        if (failures === Number.POSITIVE_INFINITY || failures-- > 0) {
          return Promise.reject(new Error("connection terminated unexpectedly"));
        }
        return reader.read(...args);
      },
    };
    const feed = await DurableFeed.open(url, flaky);
    cleanups.push(() => feed.close());
    await writer.append("ses_1", [textEvent("ses_1", "e1"), textEvent("ses_1", "e2")]);
    expect((await collect(feed, "ses_1", {}).until(2)).map((event) => event.id)).toEqual([
      "e1",
      "e2",
    ]);
    failures = Number.POSITIVE_INFINITY;
    const failing = (async () => {
      const signal = new AbortController().signal;
      for await (const _ of feed.follow("ses_1", { signal, readFailureLimitMs: 300 })) {
        // nothing: every read fails
      }
    })();
    await expect(within(failing, "the follow to give up")).rejects.toThrow(
      /following session ses_1: the store failed for 300 ms: .*connection terminated unexpectedly/,
    );
  });

  it("refuses a follow from a position that is no seq", async () => {
    const { feed } = await twoSidecars();
    const signal = new AbortController().signal;
    const first = (options: { after?: number; pageSize?: number }) =>
      feed
        .follow("ses_1", { ...options, signal })
        [Symbol.asyncIterator]()
        .next();
    await expect(first({ after: -1 })).rejects.toThrow(/after must be a seq .* not -1/);
    await expect(first({ after: 1.5 })).rejects.toThrow(UsageError);
    await expect(first({ pageSize: 0 })).rejects.toThrow(/pageSize must be a whole number ≥ 1/);
  });

  it("ends a follow when its signal aborts, and every follow when the feed closes", async () => {
    const { writer, feed } = await twoSidecars();
    await writer.append("ses_1", [textEvent("ses_1", "e1")]);
    const stop = new AbortController();
    const read: string[] = [];
    for await (const event of feed.follow("ses_1", { signal: stop.signal })) {
      read.push(event.id);
      stop.abort();
    }
    expect(read).toEqual(["e1"]);
    const still = (async () => {
      const ids: string[] = [];
      for await (const event of feed.follow("ses_1", { signal: new AbortController().signal })) {
        ids.push(event.id);
      }
      return ids;
    })();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await feed.close();
    expect(await within(still, "the follow to end with the feed")).toEqual(["e1"]);
  });
});
