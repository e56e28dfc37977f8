/**
 * (t) Failover time through the cluster: three `ocb serve --cluster` processes attached to one
 * real `opencode serve` (scripted model). Each run creates a session on one of them (which
 * drives it), starts a slow turn and, once the turn streams, SIGKILLs the driver's process
 * group. Failover time: from the kill until a surviving sidecar logs that it took the session
 * over, a line it writes once it holds the lease and the bridge has adopted the session from
 * the stored cursor (it drives it: the turn's next events are its). Its stderr is read as it
 * comes, polled every 10 ms. The lease part alone (a survivor's token in `leases`, polled every
 * 20 ms) is given too. Nothing the bench does speeds the takeover: it asks no survivor about
 * the session (a GET would open it). Each run then waits for the turn's one `turn.ended` in
 * the store, and a new sidecar replaces the killed one before the next run.
 */
import { setTimeout as delay } from "node:timers/promises";
import pg from "pg";
import type { CanonicalEvent } from "../src/events/canonical.js";
import { PostgresStore } from "../src/store/postgres-store.js";
import type { ClusterProcess } from "../test/support/cluster-process.js";
import { callSidecar, canonicalEventsOf, subscribeOverWs } from "../test/support/sidecar-http.js";
import { note } from "./stats.js";

const TOOK_OVER = "took over a session whose driver let its lease expire";

export interface FailoverRuns {
  /** Kill → a survivor took the session over (lease and adoption), per run. */
  failoverMs: number[];
  /** Kill → a survivor's lease, per run. */
  leaseMs: number[];
  /** Runs whose turn ended exactly once (in the store). */
  endedOnce: number;
}

export interface FailoverTarget {
  storeUrl: string;
  token: string;
  boundMs: number;
  /** Starts a sidecar of the cluster (the next id). */
  startSidecar: () => Promise<ClusterProcess>;
}

/** `runs` failovers; `members` (three running sidecars) is updated with the replacements. */
export async function failoverRuns(
  target: FailoverTarget,
  members: ClusterProcess[],
  runs: number,
): Promise<FailoverRuns> {
  const result: FailoverRuns = { failoverMs: [], leaseMs: [], endedOnce: 0 };
  const store = await PostgresStore.open(target.storeUrl);
  const sql = new pg.Client({ connectionString: target.storeUrl });
  await sql.connect();
  try {
    for (let run = 0; run < runs; run++) {
      const at = run % members.length;
      const driver = members[at] as ClusterProcess;
      const survivors = members.filter((member) => member !== driver);
      const measured = await oneFailover(target, driver, survivors, { store, sql });
      result.failoverMs.push(measured.failoverMs);
      result.leaseMs.push(measured.leaseMs);
      if (measured.endedOnce) result.endedOnce += 1;
      note(`(t) failover ${run + 1}/${runs}: ${Math.round(measured.failoverMs)} ms`);
      members[at] = await target.startSidecar();
    }
    return result;
  } finally {
    await sql.end();
    await store.close();
  }
}

async function oneFailover(
  target: FailoverTarget,
  driver: ClusterProcess,
  survivors: ClusterProcess[],
  db: { store: PostgresStore; sql: pg.Client },
): Promise<{ failoverMs: number; leaseMs: number; endedOnce: boolean }> {
  const on = (member: ClusterProcess) => ({ ...target, url: member.url });
  const session = (await callSidecar(on(driver), "POST", "/v1/sessions", {
    title: "bench failover",
  })) as { id: string };
  const client = await subscribeOverWs(on(driver), session.id, 0);
  try {
    await callSidecar(on(driver), "POST", `/v1/sessions/${session.id}/inputs`, {
      text: "[[slow 20 250]]",
      delivery: "queue",
    });
    const deltas = () =>
      canonicalEventsOf(client).filter((event) => event.type === "text.delta").length;
    await until("the turn under way", () => deltas() >= 3, target.boundMs);
    const before = survivors.map((member) => member.cli.stderr.length);
    process.kill(-driver.cli.pid, "SIGKILL");
    const killedAt = performance.now();
    const tookOver = () =>
      survivors.some((member, index) =>
        member.cli.stderr
          .slice(before[index])
          .split("\n")
          .some((line) => line.includes(TOOK_OVER) && line.includes(session.id)),
      );
    let leaseAt: number | undefined;
    const watchingLease = (async () => {
      while (leaseAt === undefined && performance.now() - killedAt < target.boundMs) {
        const { rows } = await db.sql.query<{ token: string }>(
          "SELECT token FROM leases WHERE session_id = $1 AND holder IS NOT NULL",
          [session.id],
        );
        if (Number(rows[0]?.token ?? 1) > 1) leaseAt = performance.now();
        else await delay(20);
      }
    })();
    await until("a survivor's takeover", tookOver, target.boundMs, 10);
    const failoverMs = performance.now() - killedAt;
    await watchingLease;
    await driver.cli.exited;
    let ends: CanonicalEvent[] = [];
    await until(
      "the turn's end in the store",
      () => ends.length > 0,
      target.boundMs,
      100,
      async () => {
        ends = (await db.store.read(session.id)).filter((event) => event.type === "turn.ended");
      },
    );
    await delay(300); // a second end, if any, would come now
    const all = await db.store.read(session.id);
    return {
      failoverMs,
      leaseMs: (leaseAt ?? Number.NaN) - killedAt,
      endedOnce: all.filter((event) => event.type === "turn.ended").length === 1,
    };
  } finally {
    client.close();
  }
}

/** Polls `ready` every `everyMs` (after `refresh`) until it holds; throws after `boundMs`. */
async function until(
  what: string,
  ready: () => boolean,
  boundMs: number,
  everyMs = 50,
  refresh: () => Promise<void> = async () => {},
): Promise<void> {
  const deadline = performance.now() + boundMs;
  for (;;) {
    await refresh();
    if (ready()) return;
    if (performance.now() > deadline) throw new Error(`(t) never reached ${what}`);
    await delay(everyMs);
  }
}
