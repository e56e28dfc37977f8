/**
 * A sidecar's cluster membership on a real Postgres: the store it drives with fences every
 * append by the lease this sidecar holds; an append without a lease, or after another sidecar
 * took the session over, stores nothing and tells the sidecar to stop driving it; a member
 * closed with turns left running leaves its leases to expire (a takeover), one closed cleanly
 * gives them up.
 */
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { canonicalEvent } from "../../test/support/canonical-event.js";
import { pastTwoHeartbeats } from "../../test/support/stalled-holder.js";
import { usePostgres } from "../../test/support/use-postgres.js";
import type { CanonicalEvent } from "../events/canonical.js";
import { FencedAppendError, PostgresStore } from "../store/postgres-store.js";
import { ClusterMember, type ClusterOptions, type StoppedDriving } from "./cluster-member.js";
import { NotDrivingError } from "./fenced-store.js";
import { LeaseKeeper } from "./lease-keeper.js";

const postgres = usePostgres();
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const FAST = { ttlMs: 1_000, renewEveryMs: 200 } as const;
/**
 * A keeper whose heartbeat never comes within a test (vitest's bound is 2 minutes): a sidecar
 * stalled, which still believes it holds what it held.
 */
const STALLED = { ttlMs: 10 * 60_000, renewEveryMs: 4 * 60_000 } as const;

async function member(url: string, options: ClusterOptions): Promise<ClusterMember> {
  const store = await PostgresStore.open(url);
  cleanups.push(() => store.close());
  const joined = await ClusterMember.join(url, store, options);
  cleanups.push(() => joined.close());
  return joined;
}

function turnStarted(sessionId: string): CanonicalEvent {
  return { ...canonicalEvent("turn_1", "turn.started", { inputId: "in_1" }), sessionId };
}

function stoppedDriving(of: ClusterMember): StoppedDriving[] {
  const told: StoppedDriving[] = [];
  of.onStoppedDriving((stopped) => told.push(stopped));
  return told;
}

describe("ClusterMember", () => {
  it("appends with its lease; without one nothing is stored and it is told to stop driving", async () => {
    const url = await postgres.freshDatabase();
    const a = await member(url, { holderId: "a", ...FAST });
    const told = stoppedDriving(a);
    await expect(a.store.append("ses_free", [turnStarted("ses_free")])).rejects.toBeInstanceOf(
      NotDrivingError,
    );
    expect(await a.store.lastSeq("ses_free")).toBe(0);
    expect(told).toEqual([
      expect.objectContaining({ sessionId: "ses_free", reason: "append-refused" }),
    ]);

    expect(await a.leases.acquire("ses_mine")).toBe(1);
    const stored = await a.store.append("ses_mine", [turnStarted("ses_mine")], "cursor_1");
    expect(stored.map((event) => event.seq)).toEqual([1]);
    expect(await a.store.cursor("ses_mine")).toBe("cursor_1");
  });

  it("refuses the appends of a driver whose session was taken over, and tells it", async () => {
    const url = await postgres.freshDatabase();
    const a = await member(url, { holderId: "a", ...STALLED });
    const told = stoppedDriving(a);
    expect(await a.leases.acquire("ses_1")).toBe(1);
    // A stalled past its lease (expired by hand here) and another sidecar took the session over.
    // A live heartbeat of A's would renew the expired lease (nobody took it yet) and, after the
    // takeover, tell A before its append: A's is stalled, so only the fence can stop A.
    const sql = new pg.Client({ connectionString: url });
    await sql.connect();
    cleanups.push(() => sql.end());
    await sql.query("UPDATE leases SET expires_at = '-infinity' WHERE session_id = 'ses_1'");
    await pastTwoHeartbeats();
    const b = await LeaseKeeper.open(url, { holderId: "b", ...FAST });
    cleanups.push(() => b.close());
    expect(await b.acquire("ses_1")).toBe(2);
    expect(a.leases.tokenOf("ses_1"), "A still believes it drives").toBe(1);

    await expect(a.store.append("ses_1", [turnStarted("ses_1")])).rejects.toBeInstanceOf(
      FencedAppendError,
    );
    expect(await a.store.lastSeq("ses_1")).toBe(0);
    expect(told.map((stopped) => stopped.reason)).toContain("append-refused");
    // And the keeper gave up what it believed it held.
    await expect.poll(() => a.leases.tokenOf("ses_1")).toBeUndefined();
  });

  it("closed with turns left running, leaves its leases to expire for a takeover", async () => {
    const url = await postgres.freshDatabase();
    const a = await member(url, { holderId: "a", ...FAST });
    const b = await member(url, { holderId: "b", ...FAST });
    await a.leases.acquire("ses_left");
    await a.leases.acquire("ses_done");
    await a.leases.release("ses_done");
    await a.close({ release: false });
    const stop = new AbortController();
    let found: string[] = [];
    for await (const batch of b.leases.expired(stop.signal, { everyMs: 100 })) {
      found = batch.map((lease) => lease.sessionId);
      stop.abort();
    }
    expect(found).toEqual(["ses_left"]);
    expect(await b.leases.acquire("ses_left")).toBe(2);
  });

  it("closed cleanly, gives its leases up: nobody takes them over", async () => {
    const url = await postgres.freshDatabase();
    const a = await member(url, { holderId: "a", ...FAST });
    const b = await member(url, { holderId: "b", ...FAST });
    await a.leases.acquire("ses_1");
    await a.close();
    expect(await b.leases.holderOf("ses_1")).toBeUndefined();
    const stop = AbortSignal.timeout(1_500);
    const batches: unknown[] = [];
    for await (const batch of b.leases.expired(stop, { everyMs: 100 })) batches.push(batch);
    expect(batches).toEqual([]);
  });
});
