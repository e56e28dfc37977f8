/**
 * One sidecar's membership of a cluster (docs/deployment.md, "A cluster of sidecars"): its
 * lease keeper (which sessions it drives), its durable feed (following the sessions others
 * drive) and the store it drives with (appends fenced by its leases). A lease lost by the
 * heartbeat and an append refused by its fence are one event for the sidecar: stop driving
 * that session (`onLost`).
 */
import type { OpencodeBridgeError } from "../errors.js";
import type { PostgresStore } from "../store/postgres-store.js";
import type { Store } from "../store/store.js";
import { type Logger, silentLogger } from "../util/logger.js";
import { DirectoryServers } from "./directory-servers.js";
import { DurableFeed } from "./durable-feed.js";
import { fencedStore } from "./fenced-store.js";
import { LeaseKeeper, type LeaseKeeperOptions } from "./lease-keeper.js";
import { SendClaims } from "./send-claims.js";

export interface ClusterOptions {
  /** This sidecar's id in the cluster (default: a random UUID, new on every start). */
  holderId?: string;
  /** Where the other sidecars reach this one (kept with its leases, named in `not_driver`). */
  address?: string;
  /** Lease length and heartbeat (`LeaseKeeperOptions`; defaults 3000 and 1000 ms). */
  ttlMs?: number;
  renewEveryMs?: number;
  /**
   * The URL of the OpenCode server this sidecar's bridge is attached to (credentials are
   * dropped). Given, the member keeps the cluster's record of which server serves each
   * directory (`directories`): the sidecar drives only sessions of its server's directories.
   * Without it, every sidecar of the cluster is taken to drive one and the same server.
   */
  server?: string;
  /** The durable feed's slow poll (default 5 s). */
  pollEveryMs?: number;
  logger?: Logger;
}

/** Why this sidecar stopped driving a session. */
export interface StoppedDriving {
  sessionId: string;
  reason: "renewal-failed" | "taken" | "append-refused";
  error?: unknown;
}

export class ClusterMember {
  readonly leases: LeaseKeeper;
  readonly feed: DurableFeed;
  /** Sends' idempotency keys, shared by the cluster (the `sends` table). */
  readonly sends: SendClaims;
  /** Which server serves each directory, when `ClusterOptions.server` was given. */
  readonly directories: DirectoryServers | undefined;
  /** The store to drive sessions with: its appends are fenced by `leases`. */
  readonly store: Store;
  readonly #listeners = new Set<(stopped: StoppedDriving) => void>();
  readonly #logger: Logger;
  #closing: Promise<void> | undefined;

  private constructor(
    leases: LeaseKeeper,
    feed: DurableFeed,
    sends: SendClaims,
    directories: DirectoryServers | undefined,
    store: PostgresStore,
    logger: Logger,
  ) {
    this.leases = leases;
    this.feed = feed;
    this.sends = sends;
    this.directories = directories;
    this.#logger = logger;
    this.store = fencedStore(store, leases, (sessionId, error) => this.#refused(sessionId, error));
    leases.onLost((lost) =>
      this.#tell({
        sessionId: lost.sessionId,
        reason: lost.reason,
        ...(lost.error === undefined ? {} : { error: lost.error }),
      }),
    );
  }

  /** Joins the cluster of the store `store` (a Postgres store, opened by the caller). */
  static async join(
    url: string,
    store: PostgresStore,
    options: ClusterOptions = {},
  ): Promise<ClusterMember> {
    const logger = options.logger ?? silentLogger;
    const keeperOptions: LeaseKeeperOptions = { logger };
    if (options.holderId !== undefined) keeperOptions.holderId = options.holderId;
    if (options.address !== undefined) keeperOptions.address = options.address;
    if (options.ttlMs !== undefined) keeperOptions.ttlMs = options.ttlMs;
    if (options.renewEveryMs !== undefined) keeperOptions.renewEveryMs = options.renewEveryMs;
    const leases = await LeaseKeeper.open(url, keeperOptions);
    let sends: SendClaims | undefined;
    let directories: DirectoryServers | undefined;
    try {
      sends = await SendClaims.open(url);
      if (options.server !== undefined) {
        directories = await DirectoryServers.open(url, {
          server: options.server,
          holderId: leases.holderId,
        });
      }
      const feed = await DurableFeed.open(url, store, {
        logger,
        ...(options.pollEveryMs === undefined ? {} : { pollEveryMs: options.pollEveryMs }),
      });
      return new ClusterMember(leases, feed, sends, directories, store, logger);
    } catch (error) {
      await Promise.allSettled([leases.close(), sends?.close(), directories?.close()]);
      throw error;
    }
  }

  get holderId(): string {
    return this.leases.holderId;
  }

  /** Calls `listener` whenever this sidecar must stop driving a session; gives its remover. */
  onStoppedDriving(listener: (stopped: StoppedDriving) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Leaves the cluster. `release: false` leaves the leases to expire (turns left running:
   * another sidecar takes them over), otherwise they are given up. Idempotent.
   */
  close(options: { release?: boolean } = {}): Promise<void> {
    this.#closing ??= (async () => {
      await Promise.allSettled([
        this.feed.close(),
        this.leases.close(options),
        this.sends.close(),
        this.directories?.close(),
      ]);
    })();
    return this.#closing;
  }

  #refused(sessionId: string, error: OpencodeBridgeError): void {
    this.#logger.warn("an append was refused: this sidecar no longer drives the session", {
      sessionId,
      error: error.message,
    });
    // Whatever the keeper still believes it holds is stale: give it up (a no-op unless it is
    // still this sidecar's, same token).
    void this.leases.release(sessionId).catch(() => {});
    this.#tell({ sessionId, reason: "append-refused", error });
  }

  #tell(stopped: StoppedDriving): void {
    for (const listener of this.#listeners) {
      try {
        listener(stopped);
      } catch (error) {
        this.#logger.error("a stopped-driving listener threw", { error });
      }
    }
  }
}
