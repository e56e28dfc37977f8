/**
 * Session leases on a real Postgres: one holder at a time however keepers race (to take free
 * leases and to take over expired ones), fencing tokens that grow on every takeover, a lease
 * lost (and said so) when another holder has it or when its heartbeat cannot reach the
 * database, before it expires there; a lease that expired but nobody took renewed by its
 * holder; and a holder killed without releasing whose sessions another keeper finds and takes.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { usePostgres } from "../../test/support/use-postgres.js";
import { UsageError } from "../errors.js";
import { LeaseKeeper, type LeaseKeeperOptions, type LostLease } from "./lease-keeper.js";

const postgres = usePostgres();
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function keeper(url: string, options: LeaseKeeperOptions = {}): Promise<LeaseKeeper> {
  const opened = await LeaseKeeper.open(url, options);
  cleanups.push(() => opened.close());
  return opened;
}

async function sql(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  cleanups.push(() => client.end());
  return client;
}

function lostOnce(of: LeaseKeeper): Promise<LostLease> {
  return new Promise((resolve) => {
    const stop = of.onLost((lost) => {
      stop();
      resolve(lost);
    });
  });
}

const ids = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, index) => `${prefix}${index}`);

describe("LeaseKeeper", () => {
  it("gives a session to one of two keepers racing for it, every time of 200", async () => {
    const url = await postgres.freshDatabase();
    const [a, b] = [await keeper(url, { holderId: "a" }), await keeper(url, { holderId: "b" })];
    const sessions = ids(200, "ses_race_");
    const results = await Promise.all(
      sessions.map((id) => Promise.all([a.acquire(id), b.acquire(id)])),
    );
    for (const [index, [byA, byB]] of results.entries()) {
      expect(
        [byA, byB].filter((token) => token !== undefined),
        sessions[index],
      ).toEqual([1]);
    }
    const client = await sql(url);
    const { rows } = await client.query<{ session_id: string; holder: string }>(
      "SELECT session_id, holder FROM leases",
    );
    for (const row of rows) {
      const winner = row.holder === "a" ? a : b;
      expect(winner.tokenOf(row.session_id)).toBe(1);
    }
    expect(rows).toHaveLength(200);
  });

  it("lets racing keepers take over each expired lease once, with the next token", async () => {
    const url = await postgres.freshDatabase();
    const [a, b] = [await keeper(url, { holderId: "a" }), await keeper(url, { holderId: "b" })];
    const client = await sql(url);
    const sessions = ids(100, "ses_dead_");
    // What a holder that died leaves: held, expired, never released.
    await client.query(
      `INSERT INTO leases (session_id, holder, address, expires_at, token)
       SELECT id, 'dead', 'http://dead:1', clock_timestamp() - interval '1 second', 7
       FROM unnest($1::text[]) AS id`,
      [sessions],
    );
    const stop = new AbortController();
    const seen = async (of: LeaseKeeper) => {
      for await (const batch of of.expired(stop.signal, { everyMs: 50, limit: 1000 })) return batch;
      return [];
    };
    const [forA, forB] = await Promise.all([seen(a), seen(b)]);
    stop.abort();
    expect(forA.map((lease) => lease.sessionId).sort()).toEqual([...sessions].sort());
    expect(forA[0]).toMatchObject({ holder: "dead", address: "http://dead:1", token: 7 });
    const taken = await Promise.all(
      sessions.map((id, index) =>
        Promise.all([a.acquire(id), b.acquire(forB[index]?.sessionId ?? id)]),
      ),
    );
    const tokens = new Map<string, number[]>();
    for (const [index, [byA, byB]] of taken.entries()) {
      const idA = sessions[index] ?? "";
      const idB = forB[index]?.sessionId ?? idA;
      if (byA !== undefined) tokens.set(idA, [...(tokens.get(idA) ?? []), byA]);
      if (byB !== undefined) tokens.set(idB, [...(tokens.get(idB) ?? []), byB]);
    }
    expect(tokens.size).toBe(100);
    for (const got of tokens.values()) expect(got).toEqual([8]);
    // Taken: no longer a candidate.
    const { rows } = await client.query(
      "SELECT 1 FROM leases WHERE expires_at < clock_timestamp()",
    );
    expect(rows).toEqual([]);
  });

  it("releases on close: nobody holds it, it is no takeover candidate, the next token is larger", async () => {
    const url = await postgres.freshDatabase();
    const a = await LeaseKeeper.open(url, { holderId: "a", address: "http://a:1" });
    const b = await keeper(url, { holderId: "b" });
    expect(await a.acquire("ses_1")).toBe(1);
    expect(await a.acquire("ses_1")).toBe(1); // held already: the same token
    expect(await Promise.all([a.acquire("ses_3"), a.acquire("ses_3")])).toEqual([1, 1]);
    expect(await b.holderOf("ses_1")).toEqual({
      sessionId: "ses_1",
      holder: "a",
      address: "http://a:1",
      token: 1,
    });
    expect(await b.acquire("ses_1")).toBeUndefined();
    await a.close();
    await expect(a.acquire("ses_2")).rejects.toThrow(UsageError);
    expect(await b.holderOf("ses_1")).toBeUndefined();
    const stop = new AbortController();
    const candidates: string[] = [];
    const watching = (async () => {
      for await (const batch of b.expired(stop.signal, { everyMs: 20 })) {
        candidates.push(...batch.map((lease) => lease.sessionId));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 100));
    stop.abort();
    await watching;
    expect(candidates).toEqual([]);
    expect(await b.acquire("ses_1")).toBe(2);
  });

  it("says a lease is lost when another holder has it now", async () => {
    const url = await postgres.freshDatabase();
    const a = await keeper(url, { holderId: "a", ttlMs: 1_000, renewEveryMs: 200 });
    expect(await a.acquire("ses_1")).toBe(1);
    const lost = lostOnce(a);
    // As if a's heartbeats had stalled past the expiry and b had taken it over meanwhile.
    await (await sql(url)).query("UPDATE leases SET holder = 'b', token = token + 1");
    expect(await lost).toEqual({ sessionId: "ses_1", token: 1, reason: "taken" });
    expect(a.tokenOf("ses_1")).toBeUndefined();
  });

  it("renews a lease that expired but nobody took: the same token, and no takeover after it", async () => {
    const url = await postgres.freshDatabase();
    // A quick heartbeat, with room for late ones: no lease lost to a loaded machine.
    const a = await keeper(url, { holderId: "a", ttlMs: 3_000, renewEveryMs: 200 });
    const b = await keeper(url, { holderId: "b" });
    expect(await a.acquire("ses_1")).toBe(1);
    const lost: LostLease[] = [];
    a.onLost((event) => lost.push(event));
    // What a renewal that reaches the database late finds: the lease expired, nobody took it.
    // (Whether b sees it expired before a's next heartbeat is a race, so it is not asked.)
    await (await sql(url)).query("UPDATE leases SET expires_at = '-infinity'");
    await expect.poll(async () => (await b.holderOf("ses_1"))?.token, { timeout: 5_000 }).toBe(1);
    expect(await b.acquire("ses_1")).toBeUndefined();
    expect(a.tokenOf("ses_1")).toBe(1);
    expect(lost).toEqual([]);
  });

  it("gives a lease up when its heartbeat cannot get through, before the database lets it expire", async () => {
    const url = await postgres.freshDatabase();
    const a = await keeper(url, { holderId: "a", ttlMs: 1_500, renewEveryMs: 200 });
    expect(await a.acquire("ses_1")).toBe(1);
    const locker = await sql(url);
    await locker.query("BEGIN");
    // Every renewal now waits (and times out): the database is unreachable for the heartbeat.
    await locker.query("LOCK TABLE leases IN ACCESS EXCLUSIVE MODE");
    const { lost, live } = await new Promise<{ lost: LostLease; live: boolean | undefined }>(
      (resolve) => {
        a.onLost((event) => {
          // Asked at once, while it is noticed: the database still counts the lease as a's.
          void locker
            .query<{ live: boolean }>("SELECT expires_at > clock_timestamp() AS live FROM leases")
            .then(({ rows }) => resolve({ lost: event, live: rows[0]?.live }));
        });
      },
    );
    await locker.query("ROLLBACK");
    expect(lost).toMatchObject({ sessionId: "ses_1", token: 1, reason: "renewal-failed" });
    expect(live, "still live on the database when given up").toBe(true);
    expect(a.tokenOf("ses_1")).toBeUndefined();
  });

  it("keeps its leases through cuts of its connections (each heartbeat reconnects)", async () => {
    const url = await postgres.freshDatabase();
    const a = await keeper(url, { holderId: "a", ttlMs: 1_500, renewEveryMs: 200 });
    const sessions = ids(5, "ses_cut_");
    for (const id of sessions) expect(await a.acquire(id)).toBe(1);
    const lost: LostLease[] = [];
    a.onLost((event) => lost.push(event));
    const admin = await sql(url);
    let cuts = 0;
    for (let cut = 0; cut < 5; cut++) {
      // Of this test's database only: the tests' Postgres serves other files' keepers too.
      const { rowCount } = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE application_name = 'opencode-bridge leases' AND datname = current_database()`,
      );
      cuts += rowCount ?? 0;
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    expect(cuts).toBeGreaterThanOrEqual(5);
    expect(lost).toEqual([]);
    const { rows } = await admin.query(
      "SELECT session_id FROM leases WHERE holder = 'a' AND expires_at > clock_timestamp()",
    );
    expect(rows).toHaveLength(5);
    for (const id of sessions) expect(a.tokenOf(id)).toBe(1);
  });

  it("lets another keeper find and take the sessions of a holder killed without releasing", async () => {
    const url = await postgres.freshDatabase();
    const sessions = ids(20, "ses_killed_");
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "test/support/lease-holder-child.ts", url, "1000", "200", ...sessions],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGKILL");
        await once(child, "exit");
      }
    });
    const [line] = (await once(child.stdout, "data")) as [Buffer];
    expect(line.toString()).toBe(`held ${sessions.map(() => 1).join(",")}\n`);
    const b = await keeper(url, { holderId: "b" });
    for (const id of sessions) expect(await b.acquire(id)).toBeUndefined();
    child.kill("SIGKILL");
    await once(child, "exit");
    const stop = new AbortController();
    const taken = new Map<string, number | undefined>();
    for await (const batch of b.expired(stop.signal, { everyMs: 100 })) {
      for (const lease of batch) taken.set(lease.sessionId, await b.acquire(lease.sessionId));
      if (taken.size === sessions.length) break;
    }
    expect([...taken.keys()].sort()).toEqual([...sessions].sort());
    expect(new Set(taken.values())).toEqual(new Set([2]));
  });

  it("fails to open on a refused login with a usage error that does not show the password", async () => {
    const url = new URL(await postgres.freshDatabase());
    url.password = "wrong-secret-4711";
    const opening = LeaseKeeper.open(url.href, { connectTimeoutMs: 5_000 });
    await expect(opening).rejects.toThrow(UsageError);
    const error = await opening.catch((caught: unknown) => caught);
    expect(String(error)).toMatch(/cannot open the transcript store postgres:\/\/postgres@/);
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(
      "wrong-secret-4711",
    );
  });

  it("refuses timings where one late heartbeat would lose every lease", async () => {
    const url = await postgres.freshDatabase();
    await expect(LeaseKeeper.open(url, { ttlMs: 1_000, renewEveryMs: 400 })).rejects.toThrow(
      /ttlMs \(1000\) must be at least twice renewEveryMs \(400\)/,
    );
  });
});
