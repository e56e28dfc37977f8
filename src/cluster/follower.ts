/**
 * One reader of one session's durable events (see durable-feed.ts): it reads the store after
 * its last seq whenever it is marked behind, a page at a time, and waits otherwise. A mark is a
 * flag, not a queue: however many notices come while it reads, it holds one page at most.
 */

import { AbortError, OpencodeBridgeError, UsageError } from "../errors.js";
import type { CanonicalEvent } from "../events/canonical.js";
import type { Store } from "../store/store.js";
import { sleep } from "../util/abort.js";
import { describeError } from "../util/describe-error.js";
import type { Logger } from "../util/logger.js";
import { SeqCursor } from "../util/replay-seam.js";

export interface FollowOptions {
  /** Start after this seq (default 0: from the first event). */
  after?: number;
  /** Ends the follow (the iteration returns). */
  signal: AbortSignal;
  /** Events read per store read (default 500): a follower's memory bound. */
  pageSize?: number;
  /** How long reads may keep failing before the follow throws (default 30 s). */
  readFailureLimitMs?: number;
}

const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 2_000;

export class Follower {
  readonly sessionId: string;
  readonly #store: Pick<Store, "read">;
  readonly #options: FollowOptions;
  readonly #logger: Logger;
  readonly #cursor: SeqCursor;
  /** Starts behind: what was committed before it was registered is read first. */
  #behind = true;
  #wake: (() => void) | undefined;

  constructor(
    sessionId: string,
    store: Pick<Store, "read">,
    options: FollowOptions,
    logger: Logger,
  ) {
    this.sessionId = sessionId;
    this.#store = store;
    this.#options = options;
    this.#logger = logger;
    const after = options.after ?? 0;
    if (!Number.isSafeInteger(after) || after < 0) {
      throw new UsageError(
        `following session ${sessionId}: after must be a seq (a whole number ≥ 0), not ${String(options.after)}`,
      );
    }
    this.#cursor = new SeqCursor(after);
    const pageSize = options.pageSize ?? 1;
    if (!Number.isSafeInteger(pageSize) || pageSize < 1) {
      throw new UsageError(
        `following session ${sessionId}: pageSize must be a whole number ≥ 1, not ${String(options.pageSize)}`,
      );
    }
  }

  /** The session has events up to `lastSeq` (Infinity: maybe, go and look). */
  behind(lastSeq: number): void {
    if (lastSeq <= this.#cursor.last) return;
    this.#behind = true;
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** The events, until the caller's signal or `feedSignal` (the feed closed) aborts. */
  async *events(feedSignal: AbortSignal): AsyncIterable<CanonicalEvent> {
    const signal = AbortSignal.any([this.#options.signal, feedSignal]);
    const pageSize = this.#options.pageSize ?? 500;
    const onAbort = (): void => this.#wake?.();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      while (!signal.aborted) {
        if (!this.#behind) {
          await new Promise<void>((resolve) => {
            this.#wake = resolve;
          });
          continue;
        }
        // Cleared before reading: a notice during the read marks it behind again.
        this.#behind = false;
        for (;;) {
          const page = await this.#read(pageSize, signal);
          for (const event of page) {
            // Read after the last seq: anything but the next one is the store's fault.
            const last = this.#cursor.last;
            if (event.seq === undefined || this.#cursor.take(event.seq) !== "next") {
              throw new OpencodeBridgeError(
                `following session ${this.sessionId}: the store gave seq ${String(event.seq)} ` +
                  `after ${last}; its events were written around their numbering`,
              );
            }
            yield event;
          }
          if (page.length < pageSize || signal.aborted) break;
        }
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** One page after the last seq; a failing store is tried again, for a bounded time. */
  async #read(pageSize: number, signal: AbortSignal): Promise<CanonicalEvent[]> {
    const limitMs = this.#options.readFailureLimitMs ?? 30_000;
    const started = performance.now();
    let retryMs = FIRST_RETRY_MS;
    for (;;) {
      try {
        return await this.#store.read(this.sessionId, {
          after: this.#cursor.last,
          limit: pageSize,
        });
      } catch (error) {
        if (performance.now() - started + retryMs > limitMs) {
          throw new OpencodeBridgeError(
            `following session ${this.sessionId}: the store failed for ${limitMs} ms: ` +
              describeError(error),
            { cause: error },
          );
        }
        this.#logger.warn("a follower's read failed: trying again", {
          sessionId: this.sessionId,
          error: describeError(error),
        });
        try {
          await sleep(retryMs, signal);
        } catch (aborted) {
          if (aborted instanceof AbortError) return [];
          throw aborted;
        }
        retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
      }
    }
  }
}
