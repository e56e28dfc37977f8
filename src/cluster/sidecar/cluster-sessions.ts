/**
 * The sidecar's side of a cluster's sessions, the `SessionCluster` the open sessions are given:
 * taking a session's lease before driving it (refused with `not_driver`, naming the driver,
 * when another sidecar holds it; with `conflict`, naming the server, when the session's
 * directory is another OpenCode server's, which only that server's sidecars can drive; the
 * routes forward commands to a driver elsewhere, forward.ts), and reading a session another
 * sidecar drives from the durable feed (one `RemoteSource` per session while someone reads
 * it, so that its subscribers share one session feed).
 */

import { ApiError } from "../../sidecar/errors.js";
import { ServedElsewhereError, type SessionCluster } from "../../sidecar/session-cluster.js";
import type { Store } from "../../store/store.js";
import type { Logger } from "../../util/logger.js";
import type { ClusterMember } from "../cluster-member.js";
import type { LeaseHolder } from "../lease-rows.js";
import type { ClusterTrust } from "./cluster-trust.js";
import { DeltaRelay } from "./delta-relay.js";
import { RemoteSource } from "./remote-source.js";

export class ClusterSessions implements SessionCluster {
  readonly member: ClusterMember;
  readonly #store: Pick<Store, "lastSeq">;
  readonly #remote = new Map<string, RemoteSource>();
  /** The secret and the TLS trust of calls between sidecars, and the addresses they may go to. */
  readonly trust: ClusterTrust;
  /** Deltas of the sessions other sidecars drive. */
  readonly #relay: DeltaRelay;
  readonly #logger: Logger;

  constructor(
    member: ClusterMember,
    store: Pick<Store, "lastSeq">,
    peers: { trust: ClusterTrust; logger: Logger },
  ) {
    this.member = member;
    this.#store = store;
    this.trust = peers.trust;
    this.#logger = peers.logger;
    this.#relay = new DeltaRelay({
      driverOf: (sessionId) => member.leases.holderOf(sessionId),
      trust: peers.trust,
      logger: peers.logger,
    });
  }

  /** The relay of other sidecars' deltas. */
  get relay(): DeltaRelay {
    return this.#relay;
  }

  /**
   * Takes the session's lease, so that this sidecar may drive it; `not_driver` when another
   * sidecar holds it (its id and address in the message and the details). With `directory`
   * (the session's), first checks that this sidecar's server serves it: `ServedElsewhereError`
   * when another server does and nobody drives the session.
   */
  async lead(
    sessionId: string,
    options: { directory?: string; signal?: AbortSignal } = {},
  ): Promise<void> {
    if (options.directory !== undefined) {
      const elsewhere = await this.#servedElsewhere(options.directory, sessionId);
      if (elsewhere !== undefined) {
        // Driven now: say who (commands go there); nobody: only its server's sidecars may.
        const holder = await this.member.leases.holderOf(sessionId);
        if (holder !== undefined) throw notDriver(sessionId, holder);
        throw elsewhere;
      }
    }
    const token = await this.member.leases.acquire(sessionId, options.signal);
    if (token !== undefined) return;
    throw notDriver(sessionId, await this.member.leases.holderOf(sessionId));
  }

  /**
   * Checks that this sidecar's server serves `directory` (recording it as the directory's
   * server when nobody did), before a session is created there; `ServedElsewhereError`
   * otherwise. Without a record of directories (no `server` given to the member): nothing.
   */
  async serveDirectory(directory: string): Promise<void> {
    const elsewhere = await this.#servedElsewhere(directory);
    if (elsewhere !== undefined) throw elsewhere;
  }

  /** Told when this sidecar no longer drives a session (`ClusterMember.onStoppedDriving`). */
  onStoppedDriving(listener: (stopped: { sessionId: string; reason: string }) => void): void {
    this.member.onStoppedDriving(listener);
  }

  /** Gives the lease up (the session was released or killed here). */
  async letGo(sessionId: string): Promise<void> {
    await this.member.leases.release(sessionId);
  }

  /** Whether a sidecar other than this one holds the session's lease now. */
  async drivenElsewhere(sessionId: string): Promise<boolean> {
    if (this.member.leases.tokenOf(sessionId) !== undefined) return false;
    const holder = await this.member.leases.holderOf(sessionId);
    return holder !== undefined && holder.holder !== this.member.holderId;
  }

  /** The session as read from the durable feed (another sidecar drives it). */
  async remoteSource(sessionId: string): Promise<RemoteSource> {
    const lastSeq = await this.#store.lastSeq(sessionId);
    const current = this.#remote.get(sessionId);
    // Kept until its last reader ends: every subscriber of the session joins one feed.
    if (current !== undefined) {
      current.advanceTo(lastSeq);
      return current;
    }
    const relay = this.#relay;
    const source: RemoteSource = new RemoteSource(
      sessionId,
      this.member.feed,
      lastSeq,
      () => {
        if (this.#remote.get(sessionId) === source) this.#remote.delete(sessionId);
      },
      { relay: (sink, signal) => relay.follow(sessionId, sink, signal), logger: this.#logger },
    );
    this.#remote.set(sessionId, source);
    return source;
  }

  async #servedElsewhere(
    directory: string,
    sessionId?: string,
  ): Promise<ServedElsewhereError | undefined> {
    const directories = this.member.directories;
    if (directories === undefined) return undefined;
    const record = await directories.claim(directory);
    if (record.server === directories.server) return undefined;
    return new ServedElsewhereError(record, directories.server, sessionId);
  }
}

/** `not_driver`, naming the holder (undefined: its lease ended just now). */
function notDriver(sessionId: string, holder: LeaseHolder | undefined): ApiError {
  const who =
    holder === undefined
      ? "another sidecar (its lease just ended: try again)"
      : `sidecar ${holder.holder}${holder.address === undefined ? "" : ` at ${holder.address}`}`;
  return new ApiError(
    "not_driver",
    `session ${sessionId} is driven by ${who}; a command sent to another sidecar is ` +
      "forwarded to it, but not a command forwarded already (send it again: the driver " +
      "changed); its events can be followed from any sidecar",
    {
      details:
        holder === undefined
          ? { sessionId }
          : { sessionId, driver: holder.holder, address: holder.address ?? null },
    },
  );
}
