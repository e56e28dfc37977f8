/**
 * End to end, the failover acceptance: three `ocb serve --cluster` processes on one
 * embedded Postgres, attached to one real `opencode serve` with the scripted model. Ten rounds
 * in a row: a session is created on one sidecar (which drives it), clients of the two others
 * follow it, its turn is under way, and the driver's process group is SIGKILLed. Another
 * sidecar takes the lease over (token 2, a survivor named holder, its log says so) and adopts
 * the turn from the stored cursor, so that it ends exactly once; the two clients end with the
 * same durable events as the store: seq dense from 1, no event id twice, one `turn.ended`
 * carrying the whole text. A new sidecar replaces the killed one as soon as it is killed (it
 * may be the one that takes over), so that three run in every round. The processes are
 * reused across rounds; all are stopped after the file, even when a round fails.
 */
import { setTimeout as delay } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import { PostgresStore } from "../../src/store/postgres-store.js";
import {
  type ClusterProcess,
  killClusterProcesses,
  startClusterProcess,
} from "../support/cluster-process.js";
import type { RunningOcb } from "../support/ocb-cli.js";
import { startTestPostgres, type TestPostgres } from "../support/postgres.js";
import type { RawWsClient } from "../support/raw-ws.js";
import { type RealServer, startRealServer } from "../support/real-server.js";
import {
  callSidecar,
  canonicalEventsOf,
  durable,
  lastSeqOf,
  seqAndId,
  subscribeOverWs,
} from "../support/sidecar-http.js";

const TOKEN = "sidecar-cluster-failover-e2e-token-0123";
/** Safety net for a state to be reached (a cold real server on a loaded machine). */
const BOUND_MS = 90_000;
const ROUNDS = 10;
/** The turn: tokens 250 ms apart, long enough to be under way when its driver dies. */
const TOKENS = 20;
const TOOK_OVER = "took over a session whose driver let its lease expire";

type Member = ClusterProcess;

let postgres: TestPostgres;
let storeUrl: string;
let real: RealServer;
let store: PostgresStore;
let sql: pg.Client;
const started: RunningOcb[] = [];

beforeAll(async () => {
  postgres = await startTestPostgres();
  storeUrl = await postgres.freshDatabase();
  real = await startRealServer();
  store = await PostgresStore.open(storeUrl);
  sql = new pg.Client({ connectionString: storeUrl });
  await sql.connect();
});

afterAll(async () => {
  await killClusterProcesses(started);
  await sql?.end();
  await store?.close();
  await real?.close();
  await postgres?.close();
});

async function until(what: string, ready: () => boolean, ...watched: Member[]): Promise<void> {
  const deadline = Date.now() + BOUND_MS;
  while (!ready()) {
    if (Date.now() > deadline) {
      const output = watched.map((m) => `${m.id}:\n${m.cli.stdout}\n${m.cli.stderr}`);
      throw new Error(`never reached ${what}:\n${output.join("\n---\n")}`);
    }
    await delay(50);
  }
}

/** A sidecar of the cluster, attached to the real server; waits for its URL. */
async function startMember(id: string): Promise<Member> {
  return await startClusterProcess({
    id,
    storeUrl,
    real,
    token: TOKEN,
    boundMs: BOUND_MS,
    started,
  });
}

function call(on: Member, method: string, path: string, body?: unknown): Promise<unknown> {
  return callSidecar({ url: on.url, token: TOKEN, boundMs: BOUND_MS }, method, path, body);
}

const endsOf = (events: CanonicalEvent[]) => events.filter((e) => e.type === "turn.ended");

/**
 * One round: the driver dies mid-turn and `replace` starts its replacement at once; gives the
 * replacement. Clients of the two survivors follow the session throughout.
 */
async function failoverRound(
  driver: Member,
  survivors: Member[],
  replace: () => Promise<Member>,
): Promise<Member> {
  const session = (await call(driver, "POST", "/v1/sessions", { title: "failover" })) as {
    id: string;
  };
  const clients: RawWsClient[] = [];
  try {
    const onDriver = await subscribeOverWs({ url: driver.url, token: TOKEN }, session.id, 0);
    clients.push(onDriver);
    const followers: RawWsClient[] = [];
    for (const survivor of survivors) {
      const client = await subscribeOverWs({ url: survivor.url, token: TOKEN }, session.id, 0);
      clients.push(client);
      followers.push(client);
      await client.waitFor("caught-up", (m) => (m as { type: string }).type === "caught-up");
    }
    await call(driver, "POST", `/v1/sessions/${session.id}/inputs`, {
      text: `[[slow ${TOKENS} 250]]`,
      delivery: "queue",
    });
    const deltasOnDriver = () =>
      canonicalEventsOf(onDriver).filter((event) => event.type === "text.delta").length;
    await until("the turn under way on the driver", () => deltasOnDriver() >= 3, driver);
    process.kill(-driver.cli.pid, "SIGKILL");
    expect(await driver.cli.exited).toBeNull();
    const ended = (client: RawWsClient) => endsOf(canonicalEventsOf(client)).length > 0;
    expect(followers.some(ended)).toBe(false); // killed mid-turn
    const replacement = await replace();

    await until("the turn's end on both survivors", () => followers.every(ended), ...survivors);
    // The lease went to one of the three alive, once; that one says it took the session over.
    const lease = await sql.query<{ holder: string; token: string }>(
      "SELECT holder, token FROM leases WHERE session_id = $1",
      [session.id],
    );
    expect(lease.rows[0]?.token).toBe("2");
    const alive = [...survivors, replacement];
    const newDriver = alive.find((member) => member.id === lease.rows[0]?.holder);
    expect(newDriver, `lease holder ${lease.rows[0]?.holder}`).toBeDefined();
    const tookOver = (newDriver?.cli.stderr ?? "")
      .split("\n")
      .filter((line) => line.includes(TOOK_OVER) && line.includes(session.id));
    expect(tookOver).toHaveLength(1);

    // Compared at one seq: what was stored by now, once every follower has it (a late event
    // may still follow, to one before the other).
    const stored = await store.read(session.id);
    const last = stored.at(-1)?.seq ?? 0;
    await until(
      "the stored events on both followers",
      () => followers.every((client) => lastSeqOf(client) >= last),
      ...survivors,
    );
    const lists = followers.map((client) =>
      durable(canonicalEventsOf(client)).filter((event) => (event.seq ?? 0) <= last),
    );
    for (const list of lists) {
      expect(seqAndId(list)).toEqual(seqAndId(stored));
      expect(list.map((event) => event.seq)).toEqual(list.map((_, index) => index + 1));
      expect(new Set(list.map((event) => event.id)).size).toBe(list.length);
    }
    expect(seqAndId(lists[0] ?? [])).toEqual(seqAndId(lists[1] ?? []));
    const ends = endsOf(stored);
    expect(ends).toHaveLength(1);
    const text = Array.from({ length: TOKENS }, (_, index) => `tok${index + 1}`).join(" ");
    expect(ends[0]?.data).toMatchObject({ outcome: "completed", text });
    expect(stored.filter((event) => event.type === "turn.started")).toHaveLength(1);
    // Done with it: its driver lets it go, so that later rounds take over only their own.
    if (newDriver !== undefined) {
      await call(newDriver, "POST", `/v1/sessions/${session.id}/release`, {});
    }
    return replacement;
  } finally {
    for (const client of clients) client.close();
  }
}

it(`SIGKILL of the driving sidecar mid-turn, ${ROUNDS} rounds in a row: another takes the lease, the turn ends once, the survivors' clients agree`, async () => {
  let count = 0;
  const members = [
    await startMember(`m${++count}`),
    await startMember(`m${++count}`),
    await startMember(`m${++count}`),
  ];
  for (let round = 0; round < ROUNDS; round++) {
    // Each round another place of the three drives (and dies): new and old sidecars alike.
    const at = round % members.length;
    const driver = members[at] as Member;
    const survivors = members.filter((member) => member !== driver);
    try {
      members[at] = await failoverRound(driver, survivors, () => startMember(`m${++count}`));
    } catch (error) {
      throw new Error(`round ${round + 1} (driver ${driver.id}): ${String(error)}`, {
        cause: error,
      });
    }
  }
});
