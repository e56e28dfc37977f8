/**
 * A lease holder that stalled past its lease, made on a real Postgres for tests whose holder's
 * keeper runs on. Expiring its lease by hand is not enough: a lease that expired but nobody
 * took is still its holder's, and the keeper's next heartbeat renews it (lease-rows.ts), so a
 * takeover would depend on coming before that heartbeat. Here the holder's heartbeats fail on
 * the database (as from a paused process or a cut link) until another holder takes the lease;
 * the heartbeat after that finds it taken.
 */
import { setTimeout as delay } from "node:timers/promises";
import pg from "pg";

/**
 * Lease timing for the holder that is to stall: its lease outlasts any test, so its keeper
 * gives it up for no failed heartbeat, only when it finds it taken; its heartbeat as quick as
 * the cluster's test sidecars'.
 */
export const LEASE_OF_A_HOLDER_TO_STALL = { ttlMs: 10 * 60_000, renewEveryMs: 200 } as const;

/**
 * From now on every heartbeat of `holder` fails on the database of `url` (its takes, releases
 * and the other holders' statements go through), and the lease of `sessionId` has expired.
 */
export async function stallPastItsLease(
  url: string,
  holder: string,
  sessionId: string,
): Promise<void> {
  const sql = new pg.Client({ connectionString: url });
  await sql.connect();
  try {
    // A renewal is the one update that keeps holder and token and moves the expiry later.
    await sql.query(`
      CREATE OR REPLACE FUNCTION fail_heartbeats_of() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.holder = TG_ARGV[0] AND NEW.holder = OLD.holder AND NEW.token = OLD.token
           AND NEW.expires_at > OLD.expires_at THEN
          RAISE EXCEPTION 'the heartbeat of % is stalled (a test)', TG_ARGV[0];
        END IF;
        RETURN NEW;
      END $$`);
    await sql.query(
      `CREATE TRIGGER ${pg.escapeIdentifier(`stall_${holder}`)} BEFORE UPDATE ON leases
       FOR EACH ROW EXECUTE FUNCTION fail_heartbeats_of(${pg.escapeLiteral(holder)})`,
    );
    await sql.query("UPDATE leases SET expires_at = '-infinity' WHERE session_id = $1", [
      sessionId,
    ]);
  } finally {
    await sql.end();
  }
}

/**
 * Waits past two heartbeats of the tests' holders (200 ms each): were the stalled holder still
 * renewing, a takeover after this wait would fail as a rule, not now and then.
 */
export const pastTwoHeartbeats = (): Promise<void> => delay(2 * 200 + 100);
