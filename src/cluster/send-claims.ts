/**
 * The `sends` table (schema version 3): a send's idempotency key, claimed by the sidecar that
 * drives the session when it admits the send, with a fingerprint of the request and, once
 * admitted, the answer. A retry through any sidecar of the cluster, before or after a
 * failover, reaches the driver of the moment, which finds the first claim here. Ages are
 * Postgres's clock (`clock_timestamp()`), as for leases: the sidecars' clocks never compare.
 */
import type { PostgresConnectionOptions } from "../store/postgres/connection.js";
import { numberOfColumn } from "../store/postgres/rows.js";
import { type ClusterPool, openClusterPool } from "./cluster-pool.js";

/** Who claims a key: the driver, with the lease token it drives the session under. */
export interface Claimant {
  holder: string;
  token: number;
}

/** A claim as a retry finds it. */
export interface SendClaim {
  fingerprint: string;
  /** The first send's answer (JSON as stored); undefined while it is under way. */
  answer: unknown;
  holder: string;
  token: number;
  /** How long ago it was claimed (ms, by the database's clock). */
  ageMs: number;
}

export class SendClaims {
  readonly #db: ClusterPool;

  private constructor(db: ClusterPool) {
    this.#db = db;
  }

  /** Connects to the store's database `url` (a pool of 2 of its own: claims are few). */
  static async open(url: string, options: PostgresConnectionOptions = {}): Promise<SendClaims> {
    const db = await openClusterPool(url, {
      ...options,
      maxConnections: options.maxConnections ?? 2,
      statementTimeoutMs: options.statementTimeoutMs ?? 10_000,
      applicationName: "opencode-bridge sends",
    });
    return new SendClaims(db);
  }

  /**
   * Claims `key` of the session for `claimant`, unless a claim younger than `ttlMs` has it (an
   * older one counts as absent and is replaced). True when this call claimed it.
   */
  async claim(
    sessionId: string,
    key: string,
    fingerprint: string,
    claimant: Claimant,
    ttlMs: number,
  ): Promise<boolean> {
    const rows = await this.#db.query(
      "claiming a send's idempotency key",
      `INSERT INTO sends AS s (session_id, key, fingerprint, holder, token)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (session_id, key) DO UPDATE SET
         fingerprint = excluded.fingerprint, holder = excluded.holder, token = excluded.token,
         answer = NULL, created_at = clock_timestamp()
       WHERE s.created_at < clock_timestamp() - $6 * interval '1 millisecond'
       RETURNING 1`,
      [sessionId, key, fingerprint, claimant.holder, claimant.token, ttlMs],
    );
    return rows.length > 0;
  }

  /** The claim of `key`, if there is one younger than `ttlMs`. */
  async find(sessionId: string, key: string, ttlMs: number): Promise<SendClaim | undefined> {
    const rows = await this.#db.query<{
      fingerprint: string;
      answer: unknown;
      holder: string;
      token: string;
      age_ms: string | number;
    }>(
      "reading a send's idempotency key",
      `SELECT fingerprint, answer, holder, token,
              extract(epoch FROM clock_timestamp() - created_at) * 1000 AS age_ms
       FROM sends WHERE session_id = $1 AND key = $2
         AND created_at >= clock_timestamp() - $3 * interval '1 millisecond'`,
      [sessionId, key, ttlMs],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    return {
      fingerprint: row.fingerprint,
      answer: row.answer ?? undefined,
      holder: row.holder,
      token: numberOfColumn(row.token, this.#db.target.description),
      ageMs: Number(row.age_ms),
    };
  }

  /** Records the answer of the send `claimant` claimed. */
  async answer(sessionId: string, key: string, claimant: Claimant, answer: unknown): Promise<void> {
    await this.#db.query(
      "recording a send's answer",
      `UPDATE sends SET answer = $5::jsonb
       WHERE session_id = $1 AND key = $2 AND holder = $3 AND token = $4`,
      [sessionId, key, claimant.holder, claimant.token, JSON.stringify(answer)],
    );
  }

  /** Gives up a claim whose send failed (nothing admitted: a retry may try again). */
  async drop(sessionId: string, key: string, claimant: Claimant): Promise<void> {
    await this.#db.query(
      "dropping a failed send's idempotency key",
      `DELETE FROM sends
       WHERE session_id = $1 AND key = $2 AND holder = $3 AND token = $4 AND answer IS NULL`,
      [sessionId, key, claimant.holder, claimant.token],
    );
  }

  /** Deletes the claims older than `ttlMs` (they count as absent already). */
  async prune(ttlMs: number): Promise<void> {
    await this.#db.query(
      "deleting expired idempotency keys",
      "DELETE FROM sends WHERE created_at < clock_timestamp() - $1 * interval '1 millisecond'",
      [ttlMs],
    );
  }

  close(): Promise<void> {
    return this.#db.end();
  }
}
