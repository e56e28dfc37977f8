/**
 * Fenced appends: in a cluster, the sidecar that drives a session appends with the fencing
 * token of its lease (src/cluster/lease-keeper.ts), and an append whose token is no longer the
 * lease's (another sidecar took the session over) is refused, storing nothing. A driver that
 * stalled (a long pause, a partition) past its lease and wakes up cannot interleave its late
 * events with the new driver's. The lease rows are read `FOR SHARE` inside the append's
 * transaction: a takeover (which updates the row) waits for the append to commit, so every
 * append is either before the takeover or refused.
 */
import type pg from "pg";
import { OpencodeBridgeError } from "../../errors.js";
import { numberOfColumn } from "./rows.js";

/** Who appends: the lease holder's id and its token. */
export interface AppendFence {
  holder: string;
  token: number;
}

/** The append's lease is no longer the appender's: it stores nothing; stop driving. */
export class FencedAppendError extends OpencodeBridgeError {
  readonly sessionId: string;
  constructor(sessionId: string, fence: AppendFence, now: string) {
    super(
      `session ${sessionId}: an append with lease token ${fence.token} of ${fence.holder} was ` +
        `refused (the lease is now ${now}): another sidecar drives it; this one must stop`,
    );
    this.sessionId = sessionId;
  }
}

/** Of `jobs`, those whose fence no longer holds: their index and the error to give them. */
export async function refusedByFence(
  client: pg.ClientBase,
  jobs: readonly { sessionId: string; fence?: AppendFence | undefined }[],
  where: string,
): Promise<Map<number, FencedAppendError>> {
  const refused = new Map<number, FencedAppendError>();
  const fenced = [...new Set(jobs.filter((job) => job.fence).map((job) => job.sessionId))].sort();
  if (fenced.length === 0) return refused;
  const { rows } = await client.query<{ session_id: string; holder: string | null; token: string }>(
    `SELECT session_id, holder, token FROM leases WHERE session_id = ANY($1::text[])
     ORDER BY session_id FOR SHARE`,
    [fenced],
  );
  const leases = new Map(rows.map((row) => [row.session_id, row]));
  for (const [index, job] of jobs.entries()) {
    if (job.fence === undefined) continue;
    const lease = leases.get(job.sessionId);
    const token = lease === undefined ? undefined : numberOfColumn(lease.token, where);
    if (lease?.holder === job.fence.holder && token === job.fence.token) continue;
    const now =
      lease === undefined
        ? "missing"
        : `token ${String(token)} of ${lease.holder ?? "nobody (released)"}`;
    refused.set(index, new FencedAppendError(job.sessionId, job.fence, now));
  }
  return refused;
}
