/**
 * Failover: every sidecar of a cluster watches for leases their holders let expire (the
 * holder died, or lost the database) and takes the sessions still `open` in the store: it
 * opens the session as a restarted sidecar does (`OpenSessions.open`: the lease first, then
 * the bridge's adoption from the stored cursor), so a turn left running ends exactly once,
 * driven from here. Another sidecar may be faster: its `not_driver` is no failure; a session
 * whose directory another OpenCode server serves is left to the sidecars attached to it.
 */

import type { OpenSessions } from "../../sidecar/open-sessions.js";
import { refusedToLead } from "../../sidecar/session-cluster.js";
import type { Store } from "../../store/store.js";
import { describeError } from "../../util/describe-error.js";
import type { Logger } from "../../util/logger.js";
import type { ClusterMember } from "../cluster-member.js";

export interface TakeoverDeps {
  member: ClusterMember;
  sessions: OpenSessions;
  store: Pick<Store, "session">;
  logger: Logger;
}

/** Takes over expired sessions until `signal` aborts; resolves then. */
export async function takeOverExpired(deps: TakeoverDeps, signal: AbortSignal): Promise<void> {
  const { member, sessions, store, logger } = deps;
  for await (const batch of member.leases.expired(signal)) {
    for (const lease of batch) {
      if (signal.aborted) return;
      try {
        const record = await store.session(lease.sessionId);
        // Released or killed sessions are nobody's to drive; a record gone: nothing to adopt.
        if (record?.state !== "open") continue;
        await sessions.open(lease.sessionId, { signal });
        logger.info("took over a session whose driver let its lease expire", {
          sessionId: lease.sessionId,
          from: lease.holder,
          ...(lease.address === undefined ? {} : { fromAddress: lease.address }),
        });
      } catch (error) {
        if (signal.aborted) return;
        // Another sidecar was faster, or its directory is another server's (whose sidecars
        // take it over).
        if (refusedToLead(error)) continue;
        logger.warn("taking over a session failed; tried again at the next check", {
          sessionId: lease.sessionId,
          error: describeError(error),
        });
      }
    }
  }
}
