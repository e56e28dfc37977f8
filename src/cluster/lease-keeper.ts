/**
 * Session leases: each session is driven by one sidecar at a time, the holder of its lease
 * (a row in `leases`, lease-rows.ts). A `LeaseKeeper` is one sidecar's side of it: it takes
 * leases, renews all it holds in one statement every `renewEveryMs` (the heartbeat), releases
 * them on a clean close, tells its listeners when one is lost (the holder must stop driving
 * that session at once), and finds the leases other holders let expire, to take them over.
 *
 * Expiry is Postgres's clock; this process's clock only measures how long ago a renewal was
 * sent (`performance.now()`, a duration, which machines agree on where their clocks' readings
 * do not). A renewal sent at local time t extends the lease to at least t + ttl on the
 * database, so the keeper may drive until then; it declares the lease lost as soon as the next
 * heartbeat could come too late, i.e. one failed heartbeat is tolerated, two are not, and the
 * holder always stops before another sidecar can take over.
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { UsageError } from "../errors.js";
import type { PostgresConnectionOptions } from "../store/postgres/connection.js";
import { sleep, throwIfAborted } from "../util/abort.js";
import { describeError } from "../util/describe-error.js";
import { type Logger, silentLogger } from "../util/logger.js";
import { type ClusterPool, openClusterPool } from "./cluster-pool.js";
import {
  currentHolder,
  expiredLeases,
  type LeaseHolder,
  releaseLease,
  renewLeases,
  takeLease,
} from "./lease-rows.js";

export interface LeaseKeeperOptions extends PostgresConnectionOptions {
  /** This sidecar's id, unique in the cluster (default: a random UUID, new on every start). */
  holderId?: string;
  /** Where this sidecar takes direct calls from the others (kept with its leases). */
  address?: string;
  /** How long a lease lasts after a renewal (default 3000 ms): a dead holder's bound. */
  ttlMs?: number;
  /** The heartbeat (default 1000 ms); `ttlMs` must allow two of them and some slack. */
  renewEveryMs?: number;
  logger?: Logger;
}

/** Why a lease was lost: the holder must stop driving its session. */
export interface LostLease {
  sessionId: string;
  token: number;
  reason: "renewal-failed" | "taken";
  /** What failed, for `renewal-failed`. */
  error?: unknown;
}

interface Held {
  token: number;
  /** `performance.now()` until which the lease is surely ours. */
  validUntil: number;
}

/** Slack kept below the lease's end for a statement's round trip and timers firing late. */
const GUARD_MS = 250;

export class LeaseKeeper {
  readonly holderId: string;
  readonly address: string | undefined;
  readonly ttlMs: number;
  readonly renewEveryMs: number;
  readonly #db: ClusterPool;
  readonly #logger: Logger;
  readonly #held = new Map<string, Held>();
  readonly #lostListeners = new Set<(lost: LostLease) => void>();
  /** Takes under way, by session. */
  readonly #taking = new Map<string, Promise<number | undefined>>();
  readonly #heartbeat: NodeJS.Timeout;
  #renewing = false;
  /** Why the last heartbeat failed (undefined after one that worked): a lost lease's cause. */
  #lastError: unknown;
  #closing: Promise<void> | undefined;

  private constructor(
    db: ClusterPool,
    options: Required<Pick<LeaseKeeperOptions, "holderId" | "ttlMs" | "renewEveryMs">> &
      LeaseKeeperOptions,
  ) {
    this.#db = db;
    this.holderId = options.holderId;
    this.address = options.address;
    this.ttlMs = options.ttlMs;
    this.renewEveryMs = options.renewEveryMs;
    this.#logger = options.logger ?? silentLogger;
    this.#heartbeat = setInterval(() => this.#beat(), this.renewEveryMs);
    this.#heartbeat.unref();
  }

  /** Connects to the store's database `url` (its schema migrated if need be). */
  static async open(url: string, options: LeaseKeeperOptions = {}): Promise<LeaseKeeper> {
    const ttlMs = options.ttlMs ?? 3_000;
    const renewEveryMs = options.renewEveryMs ?? 1_000;
    if (!(renewEveryMs > 0) || !(ttlMs >= 2 * renewEveryMs + 2 * GUARD_MS)) {
      throw new UsageError(
        `lease timing: ttlMs (${ttlMs}) must be at least twice renewEveryMs (${renewEveryMs}) ` +
          `plus ${2 * GUARD_MS} ms, so that one late heartbeat does not lose every lease`,
      );
    }
    const db = await openClusterPool(url, {
      ...options,
      maxConnections: options.maxConnections ?? 2,
      // A heartbeat stuck longer than a lease is worth nothing: bound it by the lease.
      statementTimeoutMs: options.statementTimeoutMs ?? ttlMs,
      applicationName: "opencode-bridge leases",
    });
    const holderId = options.holderId ?? randomUUID();
    return new LeaseKeeper(db, { ...options, holderId, ttlMs, renewEveryMs });
  }

  /**
   * Takes the session's lease if nobody holds it or its holder let it expire (a takeover);
   * gives the fencing token (larger than any earlier holder's), or undefined when another
   * holder has it. A lease this keeper holds already gives its token. `signal` stops it
   * before its statement is sent; once sent, it finishes (bounded by the lease's length).
   */
  async acquire(sessionId: string, signal?: AbortSignal): Promise<number | undefined> {
    this.#assertOpen();
    throwIfAborted(signal, `taking the lease of session ${sessionId}`);
    const held = this.#held.get(sessionId);
    if (held !== undefined) return held.token;
    // Two calls at once for one session share the statement: the second would find the first's
    // fresh lease, not expired, and answer that someone else holds it.
    let taking = this.#taking.get(sessionId);
    if (taking === undefined) {
      taking = this.#take(sessionId).finally(() => this.#taking.delete(sessionId));
      this.#taking.set(sessionId, taking);
    }
    const token = await taking;
    if (token === undefined) return undefined;
    if (this.#closing !== undefined && this.#held.delete(sessionId)) {
      // Taken while the keeper closed (after it released what it held): give it back.
      await releaseLease(this.#db, sessionId, this.holderId, token).catch(() => {});
    }
    this.#assertOpen();
    return token;
  }

  async #take(sessionId: string): Promise<number | undefined> {
    const sentAt = performance.now();
    const token = await takeLease(this.#db, sessionId, this.holderId, this.address, this.ttlMs);
    if (token !== undefined) this.#held.set(sessionId, { token, validUntil: sentAt + this.ttlMs });
    return token;
  }

  /** Whether this keeper holds the session's lease (as far as it knows now), and its token. */
  tokenOf(sessionId: string): number | undefined {
    return this.#held.get(sessionId)?.token;
  }

  /** Gives the lease up (the session was closed cleanly): nobody will take it over. */
  async release(sessionId: string): Promise<void> {
    const held = this.#held.get(sessionId);
    if (held === undefined) return;
    this.#held.delete(sessionId);
    await releaseLease(this.#db, sessionId, this.holderId, held.token);
  }

  /** Who drives the session now, as the database says (undefined: nobody, or it expired). */
  holderOf(sessionId: string): Promise<LeaseHolder | undefined> {
    return currentHolder(this.#db, sessionId);
  }

  /** Calls `listener` for every lease lost from now on; gives the function that stops it. */
  onLost(listener: (lost: LostLease) => void): () => void {
    this.#lostListeners.add(listener);
    return () => this.#lostListeners.delete(listener);
  }

  /**
   * The leases whose holders let them expire, checked every `everyMs` (default: the
   * heartbeat), a batch at a time (only non-empty ones), until `signal` aborts (the iteration
   * then ends). Take one with `acquire`; another keeper may be faster, which `acquire` says.
   * A failed check is logged and tried again at the next tick.
   */
  async *expired(
    signal: AbortSignal,
    options: { everyMs?: number; limit?: number } = {},
  ): AsyncIterable<LeaseHolder[]> {
    const everyMs = options.everyMs ?? this.renewEveryMs;
    while (!signal.aborted && this.#closing === undefined) {
      try {
        const found = await expiredLeases(this.#db, options.limit ?? 100);
        if (found.length > 0) yield found;
      } catch (error) {
        this.#logger.warn("looking for expired leases failed", { error: describeError(error) });
      }
      await sleep(everyMs, signal).catch(() => {});
    }
  }

  /**
   * Stops the heartbeat and releases every lease held (best effort), then disconnects. With
   * `release: false` the leases are left to expire instead: a sidecar that stops with turns
   * left running wants another to take its sessions over, as after a crash.
   */
  close(options: { release?: boolean } = {}): Promise<void> {
    this.#closing ??= (async () => {
      clearInterval(this.#heartbeat);
      const held =
        options.release === false
          ? []
          : [...this.#held].map(([id, lease]) => [id, lease.token] as const);
      this.#held.clear();
      await Promise.all(
        held.map(([id, token]) =>
          releaseLease(this.#db, id, this.holderId, token).catch((error: unknown) => {
            // It expires on its own; another sidecar takes it over then.
            this.#logger.warn("releasing a lease failed", {
              sessionId: id,
              error: describeError(error),
            });
          }),
        ),
      );
      await this.#db.end();
    })();
    return this.#closing;
  }

  #beat(): void {
    const now = performance.now();
    // Lost when the next heartbeat could end after the lease: stop driving now, before any
    // other sidecar may take it.
    for (const [sessionId, held] of this.#held) {
      if (now + this.renewEveryMs + GUARD_MS >= held.validUntil) {
        this.#lose(sessionId, held.token, "renewal-failed", this.#lastError);
      }
    }
    if (this.#renewing || this.#held.size === 0 || this.#closing !== undefined) return;
    this.#renewing = true;
    const tokens = new Map([...this.#held].map(([id, held]) => [id, held.token]));
    void renewLeases(this.#db, this.holderId, tokens, this.ttlMs)
      .then((renewed) => {
        this.#lastError = undefined;
        for (const [sessionId, token] of tokens) {
          const held = this.#held.get(sessionId);
          if (held?.token !== token) continue; // released or lost meanwhile
          if (renewed.has(sessionId)) held.validUntil = now + this.ttlMs;
          else this.#lose(sessionId, token, "taken");
        }
      })
      .catch((error: unknown) => {
        this.#lastError = error;
        this.#logger.warn("renewing leases failed", { error: describeError(error) });
      })
      .finally(() => {
        this.#renewing = false;
      });
  }

  #lose(sessionId: string, token: number, reason: LostLease["reason"], error?: unknown): void {
    this.#held.delete(sessionId);
    const lost: LostLease =
      error === undefined ? { sessionId, token, reason } : { sessionId, token, reason, error };
    this.#logger.warn("lost a session lease", { sessionId, token, reason });
    for (const listener of this.#lostListeners) {
      try {
        listener(lost);
      } catch (error) {
        // A listener's bug must not stop the heartbeat, nor the other listeners.
        this.#logger.error("a lost-lease listener threw", { error: describeError(error) });
      }
    }
  }

  #assertOpen(): void {
    if (this.#closing !== undefined) throw new UsageError("the lease keeper is closed");
  }
}
