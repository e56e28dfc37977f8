/**
 * Following sessions' durable events from any process: what a sidecar that does not drive a
 * session serves its clients. The events come from the store, never from the notice: an append
 * announces (in its transaction, so never before its rows are readable) each session's new last
 * seq on `ocb_events` (store/postgres/event-notices.ts), and a follower behind that seq reads
 * the store after its own last seq. Three things send a follower to the store, so that no event
 * is missed: a notice for its session, every (re)connection of the LISTEN connection (notices
 * sent while it was down are lost), and a slow poll of the sessions' heads (a connection that
 * died silently, a writer that did not announce). Reading "after my last seq" makes a spurious
 * wake-up cost one empty read and a repeated one nothing: no gap, no duplicate, in order.
 *
 * One `DurableFeed` per process: one LISTEN connection shared by every follower of every
 * session, a small pool for the poll, and followers of one session at the same seq share
 * their reads (shared-reads.ts). A follower holds at most one page of events; a
 * notice only marks it behind, so a slow reader costs nothing but its own lag.
 */

import type { CanonicalEvent } from "../events/canonical.js";
import type { PostgresConnectionOptions } from "../store/postgres/connection.js";
import type { EventNotice } from "../store/postgres/event-notices.js";
import type { Store } from "../store/store.js";
import { sleep } from "../util/abort.js";
import { describeError } from "../util/describe-error.js";
import { type Logger, silentLogger } from "../util/logger.js";
import { type ClusterPool, openClusterPool } from "./cluster-pool.js";
import { Follower, type FollowOptions } from "./follower.js";
import { NoticeListener } from "./notice-listener.js";
import { SharedReads } from "./shared-reads.js";

export interface DurableFeedOptions extends PostgresConnectionOptions {
  /** The slow poll of the followed sessions' heads, a backstop for lost notices (default 5 s). */
  pollEveryMs?: number;
  logger?: Logger;
}

export type { FollowOptions } from "./follower.js";

export class DurableFeed {
  readonly #db: ClusterPool;
  readonly #store: Pick<Store, "read">;
  readonly #logger: Logger;
  readonly #listener: NoticeListener;
  readonly #followers = new Map<string, Set<Follower>>();
  readonly #stop = new AbortController();
  readonly #polling: Promise<void>;
  readonly #pollEveryMs: number;

  private constructor(db: ClusterPool, store: Pick<Store, "read">, options: DurableFeedOptions) {
    this.#db = db;
    this.#store = new SharedReads(store);
    this.#logger = options.logger ?? silentLogger;
    this.#pollEveryMs = options.pollEveryMs ?? 5_000;
    this.#listener = new NoticeListener(
      db.target,
      {
        onNotice: (notice) => this.#onNotice(notice),
        onConnected: () => this.#wakeAll(),
      },
      this.#logger,
    );
    this.#listener.start();
    this.#polling = this.#poll();
  }

  /**
   * Follows the sessions of the store database `url`, reading their events through `store`
   * (the process's store on that database: reads share its pool).
   */
  static async open(
    url: string,
    store: Pick<Store, "read">,
    options: DurableFeedOptions = {},
  ): Promise<DurableFeed> {
    const db = await openClusterPool(url, {
      ...options,
      maxConnections: options.maxConnections ?? 2,
      applicationName: "opencode-bridge feed",
    });
    return new DurableFeed(db, store, options);
  }

  /**
   * The session's committed durable events after seq `after` (default 0), in order, with no
   * gap and no duplicate, as they are committed by any process; ends when `signal` aborts.
   * Throws when the store keeps failing to answer (`readFailureLimitMs`) or gives a seq out of
   * order.
   */
  async *follow(sessionId: string, options: FollowOptions): AsyncIterable<CanonicalEvent> {
    const follower = new Follower(sessionId, this.#store, options, this.#logger);
    const ofSession = this.#followers.get(sessionId) ?? new Set();
    this.#followers.set(sessionId, ofSession);
    ofSession.add(follower);
    try {
      yield* follower.events(this.#stop.signal);
    } finally {
      ofSession.delete(follower);
      if (ofSession.size === 0) this.#followers.delete(sessionId);
    }
  }

  /** The LISTEN connection's server pid, while connected (for tests that cut it). */
  get listenerPid(): number | undefined {
    return this.#listener.backendPid;
  }

  /** Ends every follow, the LISTEN connection and the poll. Idempotent. */
  async close(): Promise<void> {
    this.#stop.abort();
    await Promise.all([this.#listener.close(), this.#polling]);
    await this.#db.end();
  }

  #onNotice(notice: EventNotice): void {
    if (notice.kind === "some-session") {
      this.#wakeAll();
      return;
    }
    for (const follower of this.#followers.get(notice.sessionId) ?? []) {
      follower.behind(notice.lastSeq);
    }
  }

  #wakeAll(): void {
    for (const ofSession of this.#followers.values()) {
      for (const follower of ofSession) follower.behind(Number.POSITIVE_INFINITY);
    }
  }

  async #poll(): Promise<void> {
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      await sleep(this.#pollEveryMs, signal).catch(() => {});
      if (signal.aborted || this.#followers.size === 0) continue;
      // A connection that died without a word is found here, and reconnected (then caught up).
      await this.#listener.ping(Math.max(1_000, this.#pollEveryMs));
      try {
        const rows = await this.#db.query<{ session_id: string; last_seq: string }>(
          "polling followed sessions",
          "SELECT session_id, last_seq FROM heads WHERE session_id = ANY($1::text[])",
          [[...this.#followers.keys()]],
        );
        for (const row of rows) {
          this.#onNotice({
            kind: "session",
            sessionId: row.session_id,
            lastSeq: Number(row.last_seq),
          });
        }
      } catch (error) {
        this.#logger.warn("polling followed sessions failed", { error: describeError(error) });
      }
    }
  }
}
