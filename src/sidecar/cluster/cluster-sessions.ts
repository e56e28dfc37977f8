/**
 * The sidecar's side of a cluster's sessions: taking a session's lease before driving it
 * (refused with `not_driver`, naming the driver, when another sidecar holds it), and reading
 * a session another sidecar drives from the durable feed (one `RemoteSource` per session
 * while someone reads it, so that its subscribers share one session feed).
 */
import type { ClusterMember } from "../../cluster/cluster-member.js";
import type { Store } from "../../store/store.js";
import type { Logger } from "../../util/logger.js";
import { ApiError } from "../errors.js";
import { DeltaRelay } from "./delta-relay.js";
import { RemoteSource } from "./remote-source.js";

export class ClusterSessions {
  readonly member: ClusterMember;
  readonly #store: Pick<Store, "lastSeq">;
  readonly #remote = new Map<string, RemoteSource>();
  /** Deltas of the sessions other sidecars drive, when relayed (the sidecar's token given). */
  readonly #relay: DeltaRelay | undefined;
  readonly #logger: Logger | undefined;

  constructor(
    member: ClusterMember,
    store: Pick<Store, "lastSeq">,
    relay?: { token: string; logger: Logger },
  ) {
    this.member = member;
    this.#store = store;
    this.#logger = relay?.logger;
    this.#relay =
      relay === undefined
        ? undefined
        : new DeltaRelay({
            driverOf: (sessionId) => member.leases.holderOf(sessionId),
            token: relay.token,
            logger: relay.logger,
          });
  }

  /** The relay of other sidecars' deltas (undefined: not relayed). */
  get relay(): DeltaRelay | undefined {
    return this.#relay;
  }

  /**
   * Takes the session's lease, so that this sidecar may drive it; `not_driver` when another
   * sidecar holds it (its id and address in the message and the details).
   */
  async lead(sessionId: string, signal?: AbortSignal): Promise<void> {
    const token = await this.member.leases.acquire(sessionId, signal);
    if (token !== undefined) return;
    const holder = await this.member.leases.holderOf(sessionId);
    const who =
      holder === undefined
        ? "another sidecar (its lease just ended: try again)"
        : `sidecar ${holder.holder}${holder.address === undefined ? "" : ` at ${holder.address}`}`;
    throw new ApiError(
      "not_driver",
      `session ${sessionId} is driven by ${who}; send its commands there (commands are not ` +
        "forwarded between sidecars yet); its events can be followed from any sidecar",
      {
        details:
          holder === undefined
            ? { sessionId }
            : { sessionId, driver: holder.holder, address: holder.address ?? null },
      },
    );
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
      relay === undefined
        ? undefined
        : {
            relay: (sink, signal) => relay.follow(sessionId, sink, signal),
            ...(this.#logger === undefined ? {} : { logger: this.#logger }),
          },
    );
    this.#remote.set(sessionId, source);
    return source;
  }
}
