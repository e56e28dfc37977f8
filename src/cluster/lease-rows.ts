/**
 * The `leases` table's statements. Every expiry is computed and compared by Postgres
 * (`clock_timestamp()`), never by a sidecar's clock: sidecars' clocks differ, the database's is
 * the one they share. A takeover is a single `INSERT … ON CONFLICT DO UPDATE … WHERE expired`:
 * Postgres locks the row and checks the condition on its latest version, so two sidecars
 * racing for one session never both get it, and each takeover adds one to the token.
 */
import { numberOfColumn } from "../store/postgres/rows.js";
import type { ClusterPool } from "./cluster-pool.js";

/** A lease held by someone, as another sidecar sees it. */
export interface LeaseHolder {
  sessionId: string;
  /** The holder's id (`LeaseKeeperOptions.holderId`). */
  holder: string;
  /** Where the holder takes direct calls, if it said. */
  address: string | undefined;
  token: number;
}

/** Takes the lease if nobody holds it or its holder let it expire; gives the new token. */
export async function takeLease(
  db: ClusterPool,
  sessionId: string,
  holder: string,
  address: string | undefined,
  ttlMs: number,
): Promise<number | undefined> {
  const rows = await db.query<{ token: string }>(
    "taking a session lease",
    `INSERT INTO leases AS l (session_id, holder, address, expires_at, token)
     VALUES ($1, $2, $3, clock_timestamp() + $4 * interval '1 millisecond', 1)
     ON CONFLICT (session_id) DO UPDATE SET
       holder = excluded.holder, address = excluded.address,
       expires_at = excluded.expires_at, token = l.token + 1
     WHERE l.holder IS NULL OR l.expires_at < clock_timestamp()
     RETURNING token`,
    [sessionId, holder, address ?? null, ttlMs],
  );
  return rows[0] === undefined ? undefined : numberOfColumn(rows[0].token, db.target.description);
}

/**
 * Extends the leases `held` (session id → token) by `ttlMs` from now; gives the sessions it
 * extended. One missing was taken by another holder (after it expired) or deleted.
 *
 * A lease that expired but nobody took is extended too, on purpose: its token is unchanged, so
 * no other holder had it meanwhile, and no other holder's append came in between (appends are
 * fenced by the token, append-fence.ts); a takeover adds one to the token, and this statement
 * then misses the row. A renewal that reached the database late (load, a slow link) keeps the
 * session where it is instead of moving it for nothing.
 */
export async function renewLeases(
  db: ClusterPool,
  holder: string,
  held: ReadonlyMap<string, number>,
  ttlMs: number,
): Promise<Set<string>> {
  if (held.size === 0) return new Set();
  const rows = await db.query<{ session_id: string }>(
    "renewing session leases",
    `UPDATE leases AS l SET expires_at = clock_timestamp() + $2 * interval '1 millisecond'
     FROM unnest($3::text[], $4::bigint[]) AS h(session_id, token)
     WHERE l.session_id = h.session_id AND l.token = h.token AND l.holder = $1
     RETURNING l.session_id`,
    [holder, ttlMs, [...held.keys()], [...held.values()]],
  );
  return new Set(rows.map((row) => row.session_id));
}

/** Gives the lease up, if it is still this holder's (same token): nobody holds it after. */
export async function releaseLease(
  db: ClusterPool,
  sessionId: string,
  holder: string,
  token: number,
): Promise<void> {
  await db.query(
    "releasing a session lease",
    `UPDATE leases SET holder = NULL, address = NULL, expires_at = '-infinity'
     WHERE session_id = $1 AND holder = $2 AND token = $3`,
    [sessionId, holder, token],
  );
}

/** Leases whose holder let them expire without releasing them (it died, or lost the database). */
export async function expiredLeases(db: ClusterPool, limit: number): Promise<LeaseHolder[]> {
  const rows = await db.query<{
    session_id: string;
    holder: string;
    address: string | null;
    token: string;
  }>(
    "looking for expired session leases",
    `SELECT session_id, holder, address, token FROM leases
     WHERE holder IS NOT NULL AND expires_at < clock_timestamp()
     ORDER BY expires_at LIMIT $1`,
    [limit],
  );
  return rows.map((row) => ({
    sessionId: row.session_id,
    holder: row.holder,
    address: row.address ?? undefined,
    token: numberOfColumn(row.token, db.target.description),
  }));
}

/** Who holds the session's lease now (undefined: nobody, or it expired). */
export async function currentHolder(
  db: ClusterPool,
  sessionId: string,
): Promise<LeaseHolder | undefined> {
  const rows = await db.query<{ holder: string; address: string | null; token: string }>(
    "reading a session lease",
    `SELECT holder, address, token FROM leases
     WHERE session_id = $1 AND holder IS NOT NULL AND expires_at >= clock_timestamp()`,
    [sessionId],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  return {
    sessionId,
    holder: row.holder,
    address: row.address ?? undefined,
    token: numberOfColumn(row.token, db.target.description),
  };
}
