/**
 * Sends' idempotency keys in a cluster: the driver claims a send's key in Postgres when it
 * admits it (`SendClaims`, the `sends` table) and records the answer, so that a retry through
 * any sidecar (forwarded to the driver of the moment), before or after a failover, gets the
 * first answer (`replayed`) instead of a second admission. The same key with another input is
 * the usual `conflict`.
 *
 * A retry that finds the first send still under way waits for its answer, bounded
 * (`pendingWaitMs`, 5 s), then gets 503 `unavailable` (try again). A claim still without an
 * answer once the first send's own bound has passed (`abandonAfterMs`: its sidecar stopped,
 * or lost the database, before it could answer) is told as a 409 `conflict`: whether that
 * input was admitted is unknown, the transcript says. Retries on the same sidecar share the
 * first's promise, as with the in-memory keys. Claims older than the ttl count as absent and
 * are deleted (at most once a minute, by the sidecar that claims a key).
 */
import { performance } from "node:perf_hooks";
import { ApiError } from "../../sidecar/errors.js";
import { type IdempotentSends, keyReused, requestFingerprint } from "../../sidecar/idempotency.js";
import { sleep } from "../../util/abort.js";
import { describeError } from "../../util/describe-error.js";
import type { Logger } from "../../util/logger.js";
import { type SendInputResult, SendInputResultSchema } from "../../wire/http.js";
import type { ClusterMember } from "../cluster-member.js";
import type { Claimant, SendClaim } from "../send-claims.js";

export interface SharedSendsOptions {
  /** How long a key holds (the sidecar's `idempotencyTtlMs`). */
  ttlMs: number;
  /** After this long without an answer, a claim's send is given up for lost. */
  abandonAfterMs: number;
  /** How long a retry waits for a first send under way (default 5 s). */
  pendingWaitMs?: number;
  /** How often it looks again meanwhile (default 100 ms). */
  pollMs?: number;
  logger: Logger;
  /** The sidecar stops: waits end. */
  stopping: AbortSignal;
}

type Outcome = { answer: SendInputResult; replayed: boolean };

const PRUNE_EVERY_MS = 60_000;

export class SharedSends implements IdempotentSends {
  readonly #member: ClusterMember;
  readonly #options: Required<SharedSendsOptions>;
  /** Sends under way here, by session and key: a retry here joins the first. */
  readonly #inflight = new Map<string, { fingerprint: string; outcome: Promise<Outcome> }>();
  #prunedAt = Number.NEGATIVE_INFINITY;

  constructor(member: ClusterMember, options: SharedSendsOptions) {
    this.#member = member;
    this.#options = { pendingWaitMs: 5_000, pollMs: 100, ...options };
  }

  async run(
    sessionId: string,
    key: string,
    request: unknown,
    run: () => Promise<SendInputResult>,
  ): Promise<Outcome> {
    const id = `${sessionId}\u0000${key}`;
    const fingerprint = requestFingerprint(request);
    const local = this.#inflight.get(id);
    if (local !== undefined) {
      if (local.fingerprint !== fingerprint) throw keyReused(key);
      return { answer: (await local.outcome).answer, replayed: true };
    }
    const outcome = this.#claimOrReplay(sessionId, key, fingerprint, run);
    this.#inflight.set(id, { fingerprint, outcome });
    try {
      return await outcome;
    } finally {
      this.#inflight.delete(id);
    }
  }

  async #claimOrReplay(
    sessionId: string,
    key: string,
    fingerprint: string,
    run: () => Promise<SendInputResult>,
  ): Promise<Outcome> {
    const { sends, leases } = this.#member;
    const token = leases.tokenOf(sessionId);
    if (token === undefined) {
      throw new ApiError(
        "not_driver",
        `this sidecar stopped driving session ${sessionId} just now; send again`,
      );
    }
    const claimant = { holder: this.#member.holderId, token };
    this.#prune();
    const { ttlMs, pendingWaitMs, pollMs, stopping } = this.#options;
    const waitUntil = performance.now() + pendingWaitMs;
    for (;;) {
      if (await sends.claim(sessionId, key, fingerprint, claimant, ttlMs)) {
        return { answer: await this.#runClaimed(sessionId, key, claimant, run), replayed: false };
      }
      const found = await sends.find(sessionId, key, ttlMs);
      // Gone between the two statements (its send failed, or it expired): claim it again.
      if (found !== undefined) {
        if (found.fingerprint !== fingerprint) throw keyReused(key);
        if (found.answer !== undefined) return { answer: storedAnswer(found), replayed: true };
        if (found.ageMs > this.#options.abandonAfterMs) throw lostSend(key, found);
      }
      if (performance.now() >= waitUntil) throw stillUnderWay(key, found, pendingWaitMs);
      await sleep(pollMs, stopping, "waiting for the first send with this idempotency key");
    }
  }

  async #runClaimed(
    sessionId: string,
    key: string,
    claimant: Claimant,
    run: () => Promise<SendInputResult>,
  ): Promise<SendInputResult> {
    const { sends } = this.#member;
    let answer: SendInputResult;
    try {
      answer = await run();
    } catch (error) {
      // Nothing was admitted (or OpenCode failed and the client is told): a retry may try again.
      await sends.drop(sessionId, key, claimant).catch((dropError: unknown) =>
        this.#options.logger.warn("dropping a failed send's idempotency key failed", {
          sessionId,
          error: describeError(dropError),
        }),
      );
      throw error;
    }
    try {
      await sends.answer(sessionId, key, claimant, answer);
    } catch (error) {
      // The send was admitted: its client gets the answer; a retry will find no answer.
      this.#options.logger.warn(
        "recording a send's answer failed; a retry with its key will wait",
        {
          sessionId,
          error: describeError(error),
        },
      );
    }
    return answer;
  }

  #prune(): void {
    const now = performance.now();
    if (now - this.#prunedAt < PRUNE_EVERY_MS) return;
    this.#prunedAt = now;
    void this.#member.sends.prune(this.#options.ttlMs).catch((error: unknown) => {
      this.#options.logger.warn("deleting expired idempotency keys failed", {
        error: describeError(error),
      });
    });
  }
}

function storedAnswer(found: SendClaim): SendInputResult {
  const parsed = SendInputResultSchema.safeParse(found.answer);
  if (parsed.success) return parsed.data;
  throw new ApiError(
    "internal",
    "the answer stored for this idempotency key is not a send's answer; use a new key",
  );
}

function stillUnderWay(key: string, found: SendClaim | undefined, waitedMs: number): ApiError {
  const where = found === undefined ? "" : ` (on sidecar ${found.holder})`;
  return new ApiError(
    "unavailable",
    `the first send with idempotency key ${JSON.stringify(key)} is still under way${where} ` +
      `after ${Math.round(waitedMs / 1000)} s more; send again with the same key to get its answer`,
    {
      details: { idempotencyKey: key, ...(found === undefined ? {} : { claimedBy: found.holder }) },
    },
  );
}

function lostSend(key: string, found: SendClaim): ApiError {
  return new ApiError(
    "conflict",
    `the first send with idempotency key ${JSON.stringify(key)} never answered (sidecar ` +
      `${found.holder} stopped while sending it): whether it was admitted is unknown; look for ` +
      "it in the session's transcript, and send it again with a new key if it is not there",
    { details: { idempotencyKey: key, claimedBy: found.holder } },
  );
}
