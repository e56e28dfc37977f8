/**
 * Idempotency keys of inputs: a send retried with the same key on the same session (after a
 * dropped connection, say) gets the first answer again and is never admitted twice. Kept in
 * memory for a bounded time and count; a retry while the first is still under way waits for it.
 */
import { createHash } from "node:crypto";
import type { LRUCache } from "lru-cache";
import type { SendInputResult } from "../wire/http.js";
import { type BoundedTtl, boundedTtlCache } from "./bounded-ttl.js";
import { ApiError } from "./errors.js";

/**
 * Sends by idempotency key, as the inputs route uses them: kept in memory by one sidecar
 * (`Idempotency`), or in Postgres by a cluster's (`SharedSends`, src/cluster/sidecar/shared-sends.ts).
 */
export interface IdempotentSends {
  /** The answer for `key` on `sessionId`: the first send's (`replayed: true`), or `run()`'s. */
  run(
    sessionId: string,
    key: string,
    request: unknown,
    run: () => Promise<SendInputResult>,
  ): Promise<{ answer: SendInputResult; replayed: boolean }>;
}

/** A digest of the request: the same key with another input is a client bug, not a retry. */
export function requestFingerprint(request: unknown): string {
  return createHash("sha256").update(JSON.stringify(request)).digest("hex");
}

/** The answer to a key used again for another input. */
export function keyReused(key: string): ApiError {
  return new ApiError(
    "conflict",
    `idempotency key ${JSON.stringify(key)} was used for another input on this session; ` +
      "use a new key for each new input",
  );
}

interface Entry {
  /** `requestFingerprint` of the request. */
  fingerprint: string;
  answer: Promise<unknown>;
}

export class Idempotency {
  readonly #entries: LRUCache<string, Entry>;

  constructor(options: BoundedTtl) {
    this.#entries = boundedTtlCache<Entry>(options).cache;
  }

  /**
   * The answer for `key` on `sessionId`: the remembered one (`replayed: true`), or `run()`'s.
   * A failed run is forgotten, so that the retry can try again (nothing was admitted by it, or
   * OpenCode failed and the client is told so).
   */
  async run<T>(
    sessionId: string,
    key: string,
    request: unknown,
    run: () => Promise<T>,
  ): Promise<{ answer: T; replayed: boolean }> {
    const id = `${sessionId}\u0000${key}`;
    const fingerprint = requestFingerprint(request);
    const known = this.#entries.peek(id);
    if (known !== undefined) {
      if (known.fingerprint !== fingerprint) throw keyReused(key);
      // Stored by the run below for this same key, so of the same T.
      return { answer: (await known.answer) as T, replayed: true };
    }
    const answer = run();
    this.#entries.set(id, { fingerprint, answer });
    try {
      return { answer: await answer, replayed: false };
    } catch (error) {
      this.#entries.delete(id);
      throw error;
    }
  }

  get size(): number {
    this.#entries.purgeStale();
    return this.#entries.size;
  }
}

/** Whether a JSON or multipart send body carries an idempotency key (a retry is then safe). */
export function carriesIdempotencyKey(body: Buffer, contentType: string | undefined): boolean {
  if (contentType?.startsWith("multipart/") === true) {
    return /name="idempotencyKey"/.test(body.toString("latin1"));
  }
  try {
    const parsed: unknown = JSON.parse(body.toString("utf8"));
    return (
      typeof parsed === "object" &&
      parsed !== null &&
      "idempotencyKey" in parsed &&
      typeof parsed.idempotencyKey === "string"
    );
  } catch {
    return false;
  }
}
