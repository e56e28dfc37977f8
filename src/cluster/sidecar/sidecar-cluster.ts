/**
 * One sidecar's part in a cluster, as the assembly (sidecar.ts) builds it and wires it in
 * through the interfaces the sidecar's parts declare: the `SessionCluster` the open sessions
 * are given (`sessions`), the `ClusterPeers` the routes, the stream routes and the security
 * hook are given (this object), the sends' idempotency keys in Postgres and the failover loop.
 * The assembly imports nothing else of src/cluster/sidecar/.
 */

import type { Session } from "../../runtime/session/session.js";
import type { ClusterPeers, ForwardOptions, PreParsingHook } from "../../sidecar/cluster-peers.js";
import type { SidecarContext } from "../../sidecar/context.js";
import type { SidecarApp } from "../../sidecar/sidecar-app.js";
import type { FeedSource } from "../../sidecar/streams/feed-types.js";
import type { Store } from "../../store/store.js";
import type { Logger } from "../../util/logger.js";
import type { ClusterMember } from "../cluster-member.js";
import { ClusterSessions } from "./cluster-sessions.js";
import { ClusterTrust, type ClusterTrustOptions } from "./cluster-trust.js";
import { forwardToDriver } from "./forward.js";
import { relaySource } from "./relay-serving.js";
import { SharedSends, type SharedSendsOptions } from "./shared-sends.js";
import { type TakeoverDeps, takeOverExpired } from "./takeover.js";

export class SidecarCluster implements ClusterPeers {
  readonly member: ClusterMember;
  /** The secret and the TLS trust of calls between sidecars, and the addresses they may go to. */
  readonly trust: ClusterTrust;
  /** Leases before driving, other sidecars' sessions from the durable feed, their deltas relayed. */
  readonly sessions: ClusterSessions;

  /** `store`: the one the sidecar reads kept sessions from (the member's, fenced, by default). */
  constructor(
    member: ClusterMember,
    options: { store: Pick<Store, "lastSeq">; trust: ClusterTrustOptions; logger: Logger },
  ) {
    this.member = member;
    this.trust = new ClusterTrust(options.trust, options.logger);
    this.sessions = new ClusterSessions(member, options.store, {
      trust: this.trust,
      logger: options.logger,
    });
  }

  get secret(): string {
    return this.trust.secret;
  }

  forwardToDriver(ctx: SidecarContext, app: SidecarApp, options: ForwardOptions): PreParsingHook {
    return forwardToDriver(ctx, app, options, this.sessions);
  }

  relaySource(open: Session | undefined, sessionId: string): FeedSource {
    return relaySource(open, sessionId);
  }

  /** Sends' idempotency keys, kept in Postgres for every sidecar of the cluster. */
  sends(options: SharedSendsOptions): SharedSends {
    return new SharedSends(this.member, options);
  }

  /** Takes over the sessions whose driver let its lease expire, until `signal` aborts. */
  takeOverExpired(deps: Omit<TakeoverDeps, "member">, signal: AbortSignal): Promise<void> {
    return takeOverExpired({ member: this.member, ...deps }, signal);
  }
}
