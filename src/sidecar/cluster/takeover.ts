/**
 * Failover: every sidecar of a cluster watches for leases their holders let expire (the
 * holder died, or lost the database) and takes the sessions still `open` in the store: it
 * opens the session as a restarted sidecar does (`OpenSessions.open`: the lease first, then
 * the bridge's adoption from the stored cursor), so a turn left running ends exactly once,
 * driven from here. Another sidecar may be faster: its `not_driver` is no failure; a session
 * whose directory another OpenCode server serves is left to the sidecars attached to it.
 */
import type { Store } from "../../store/store.js";
import { describeError } from "../../util/describe-error.js";
import type { Logger } from "../../util/logger.js";
import { ApiError } from "../errors.js";
import type { OpenSessions } from "../open-sessions.js";
import { type ClusterSessions, ServedElsewhereError } from "./cluster-sessions.js";

export interface TakeoverDeps {
  cluster: ClusterSessions;
  sessions: OpenSessions;
  store: Pick<Store, "session">;
  logger: Logger;
}

/** Takes over expired sessions until `signal` aborts; resolves then. */
export async function takeOverExpired(deps: TakeoverDeps, signal: AbortSignal): Promise<void> {
  const { cluster, sessions, store, logger } = deps;
  for await (const batch of cluster.member.leases.expired(signal)) {
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
        if (error instanceof ApiError && error.code === "not_driver") continue; // another was faster
        // Its directory is another server's: that server's sidecars take it over.
        if (error instanceof ServedElsewhereError) continue;
        logger.warn("taking over a session failed; tried again at the next check", {
          sessionId: lease.sessionId,
          error: describeError(error),
        });
      }
    }
  }
}
