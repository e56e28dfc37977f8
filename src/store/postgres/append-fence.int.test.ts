/**
 * Fenced appends on a real Postgres: the driver's appends carry its lease token; once another
 * holder took the lease over (or it was released, or never taken), they are refused and store
 * nothing, while the other appends of the same group commit are written; an append that meets
 * a takeover under way waits for it and is then refused.
 */
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { storeEvent } from "../../../test/support/store-contract.js";
import { usePostgres } from "../../../test/support/use-postgres.js";
import { FencedAppendError, PostgresStore } from "../postgres-store.js";

const postgres = usePostgres();
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function storeAndAdmin(): Promise<{ store: PostgresStore; admin: pg.Client }> {
  const url = await postgres.freshDatabase();
  const store = await PostgresStore.open(url);
  cleanups.push(() => store.close());
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  cleanups.push(() => admin.end());
  return { store, admin };
}

const event = (sessionId: string, id: string) =>
  storeEvent(id, "text.ended", { partId: id, text: id }, sessionId);

async function lease(admin: pg.Client, sessionId: string, holder: string | null, token: number) {
  await admin.query(
    `INSERT INTO leases (session_id, holder, expires_at, token)
     VALUES ($1, $2, clock_timestamp() + interval '1 minute', $3)
     ON CONFLICT (session_id) DO UPDATE SET holder = excluded.holder, token = excluded.token`,
    [sessionId, holder, token],
  );
}

describe("PostgresStore.appendFenced", () => {
  it("stores the holder's appends and refuses a stale holder's, in the same group commit as others", async () => {
    const { store, admin } = await storeAndAdmin();
    await lease(admin, "ses_1", "a", 1);
    const a = { holder: "a", token: 1 };
    expect((await store.appendFenced(a, "ses_1", [event("ses_1", "e1")], "c1")).length).toBe(1);
    await lease(admin, "ses_1", "b", 2); // b took it over
    const [stale, other, byB] = await Promise.allSettled([
      store.appendFenced(a, "ses_1", [event("ses_1", "late")], "c-late"),
      store.append("ses_2", [event("ses_2", "x1")]),
      store.appendFenced({ holder: "b", token: 2 }, "ses_1", [event("ses_1", "e2")]),
    ]);
    expect(stale.status).toBe("rejected");
    const error = stale.status === "rejected" ? stale.reason : undefined;
    expect(error).toBeInstanceOf(FencedAppendError);
    expect(String(error)).toMatch(
      /lease token 1 of a was refused \(the lease is now token 2 of b\)/,
    );
    expect(other).toMatchObject({ status: "fulfilled", value: [{ seq: 1 }] });
    expect(byB).toMatchObject({ status: "fulfilled", value: [{ seq: 2 }] });
    expect((await store.read("ses_1")).map((stored) => stored.id)).toEqual(["e1", "e2"]);
    expect(await store.cursor("ses_1")).toBe("c1");
  });

  it("refuses an append for a lease released or never taken", async () => {
    const { store, admin } = await storeAndAdmin();
    await lease(admin, "ses_1", null, 3);
    const fence = { holder: "a", token: 3 };
    await expect(store.appendFenced(fence, "ses_1", [event("ses_1", "e1")])).rejects.toThrow(
      /the lease is now token 3 of nobody \(released\)/,
    );
    await expect(store.appendFenced(fence, "ses_9", [event("ses_9", "e1")])).rejects.toThrow(
      /the lease is now missing/,
    );
    expect(await store.lastSeq("ses_1")).toBe(0);
  });

  it("waits for a takeover under way, then refuses the old holder's append", async () => {
    const { store, admin } = await storeAndAdmin();
    await lease(admin, "ses_1", "a", 1);
    await admin.query("BEGIN");
    await admin.query("UPDATE leases SET holder = 'b', token = 2 WHERE session_id = 'ses_1'");
    const appending = store.appendFenced({ holder: "a", token: 1 }, "ses_1", [
      event("ses_1", "e1"),
    ]);
    const settled = appending.then(
      () => "stored",
      () => "refused",
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await Promise.race([settled, Promise.resolve("waiting")])).toBe("waiting");
    await admin.query("COMMIT");
    expect(await settled).toBe("refused");
    expect(await store.lastSeq("ses_1")).toBe(0);
  });
});
