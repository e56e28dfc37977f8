/**
 * The seam between replaying what is kept and going live: the one place that decides, for a
 * reader of a seq-numbered stream, which event it hands out, so that it gets every numbered
 * event once, in order, with no gap and no duplicate however the kept events and the live ones
 * overlap, and however often it starts again from the last seq it has.
 *
 * A reader that has every numbered event up to `after`:
 * 1. subscribes to the live events first (so that none slips between the replay and them) and
 *    hands each to `arrived()`: while the replay runs they are buffered, at most `bufferLimit`
 *    of them (one more is a `ReplayOverflowError`: memory stays bounded however slow the
 *    replay, and the reader starts again from `last`);
 * 2. hands each kept event it replays to `kept()`, which says whether it is new;
 * 3. once the replay is done AND the live side has passed the last seq it read (so that every
 *    live event older than the replay's end is in the buffer), calls `goLive()`: it gets the buffered events it does not have yet, in order, the
 *    ephemeral ones that came before a numbered event it had already dropped with them (they
 *    are older than what it has); from then on `arrived()` hands each event through, or drops it
 *    when it is a duplicate.
 * A numbered event past the next one (`last + 1`) is a gap: a `SeqGapError`, unless the reader
 * gives `onGap`, which is told and takes the event. Once `signal` aborts, every call lets the
 * buffer go and throws `AbortError`.
 *
 * Isomorphic and dependency-free (the browser client uses it too): no Node module, no timer.
 */
import { AbortError, OpencodeBridgeError, UsageError } from "../errors.js";

/** What a numbered event is to a reader: the one it needs next, one it has, or one past a hole. */
export type SeqVerdict = "next" | "duplicate" | "gap";

/** A numbered event arrived past the next one: the events in between are missing. */
export class SeqGapError extends OpencodeBridgeError {
  /** The last seq the reader has. */
  readonly after: number;
  /** The seq that arrived (past `after + 1`). */
  readonly seq: number;
  constructor(what: string, after: number, seq: number) {
    super(`${what}: seq ${seq} came after ${after}; the events in between are missing`);
    this.after = after;
    this.seq = seq;
  }
}

/** More live events arrived while the replay ran than the reader may hold. */
export class ReplayOverflowError extends OpencodeBridgeError {
  readonly limit: number;
  constructor(what: string, limit: number) {
    super(
      `${what}: more than ${limit} live events arrived while the kept ones were replayed; ` +
        "read again from the last seq handed out",
    );
    this.limit = limit;
  }
}

/** A reader's place in a seq-numbered stream: the last seq it has. */
export class SeqCursor {
  #last: number;

  constructor(after = 0) {
    if (!Number.isSafeInteger(after) || after < 0) {
      throw new UsageError(`after must be a seq (a whole number ≥ 0), not ${String(after)}`);
    }
    this.#last = after;
  }

  /** The last seq taken (`after` before any). */
  get last(): number {
    return this.#last;
  }

  /** What `seq` is to this reader, without taking it. */
  verdict(seq: number): SeqVerdict {
    if (seq <= this.#last) return "duplicate";
    return seq === this.#last + 1 ? "next" : "gap";
  }

  /** Takes `seq` unless it is a duplicate (a gap's seq is taken too: the caller said so). */
  take(seq: number): SeqVerdict {
    const verdict = this.verdict(seq);
    if (verdict !== "duplicate") this.#last = seq;
    return verdict;
  }
}

export interface ReplaySeamOptions<E> {
  /** The last seq the reader has (0: none). */
  after: number;
  /** An event's seq, or undefined for one that is not numbered (ephemeral: never a duplicate). */
  seqOf: (event: E) => number | undefined;
  /** How many live events may wait while the replay runs. */
  bufferLimit: number;
  /** Told of a gap, which is then taken; without it a gap throws `SeqGapError`. */
  onGap?: (gap: { after: number; seq: number }) => void;
  /** Lets the buffer go; every later call throws `AbortError`. */
  signal?: AbortSignal | undefined;
  /** Names the reader in errors. */
  what?: string;
}

export class ReplaySeam<E> {
  readonly #cursor: SeqCursor;
  readonly #seqOf: (event: E) => number | undefined;
  readonly #bufferLimit: number;
  readonly #onGap: ((gap: { after: number; seq: number }) => void) | undefined;
  readonly #signal: AbortSignal | undefined;
  readonly #what: string;
  /** Live events that came while the replay ran; undefined once live. */
  #buffer: E[] | undefined = [];

  constructor(options: ReplaySeamOptions<E>) {
    this.#cursor = new SeqCursor(options.after);
    this.#seqOf = options.seqOf;
    const limit = options.bufferLimit;
    if (!(limit === Number.POSITIVE_INFINITY || (Number.isSafeInteger(limit) && limit >= 0))) {
      throw new UsageError(`bufferLimit must be a whole number ≥ 0, not ${String(limit)}`);
    }
    this.#bufferLimit = limit;
    this.#onGap = options.onGap;
    this.#signal = options.signal;
    this.#what = options.what ?? "replaying, then reading live";
    // No abort listener: a long-lived signal shared by many readers would keep every seam.
    // An aborted seam lets its buffer go at its next call; its owner drops it anyway.
  }

  /** The last seq handed out (`after` before any). */
  get last(): number {
    return this.#cursor.last;
  }

  /** Whether the replay is over (`goLive` was called). */
  get live(): boolean {
    return this.#buffer === undefined;
  }

  /** How many live events wait for the replay to end. */
  get buffered(): number {
    if (this.#signal?.aborted && this.#buffer !== undefined) this.#buffer = [];
    return this.#buffer?.length ?? 0;
  }

  /** A kept event the replay read: whether the reader should have it (false: a duplicate). */
  kept(event: E): boolean {
    this.#checkAborted();
    return this.#take(event);
  }

  /**
   * A live event: buffered while the replay runs (nothing to hand out yet), then the event
   * itself unless it is a duplicate. Throws `ReplayOverflowError` past `bufferLimit`.
   */
  arrived(event: E): E[] {
    this.#checkAborted();
    const buffer = this.#buffer;
    if (buffer === undefined) return this.#take(event) ? [event] : [];
    if (buffer.length >= this.#bufferLimit) {
      this.#buffer = [];
      throw new ReplayOverflowError(this.#what, this.#bufferLimit);
    }
    buffer.push(event);
    return [];
  }

  /** The replay is over: the buffered events the reader lacks, in order; live from now on. */
  goLive(): E[] {
    this.#checkAborted();
    const buffer = this.#buffer ?? [];
    this.#buffer = undefined;
    // Everything up to the last numbered event the reader has is older than what it has.
    let start = 0;
    buffer.forEach((event, index) => {
      const seq = this.#seqOf(event);
      if (seq !== undefined && seq <= this.#cursor.last) start = index + 1;
    });
    return buffer.slice(start).filter((event) => this.#take(event));
  }

  #take(event: E): boolean {
    const seq = this.#seqOf(event);
    if (seq === undefined) return true;
    const after = this.#cursor.last;
    const verdict = this.#cursor.verdict(seq);
    if (verdict === "duplicate") return false;
    if (verdict === "gap") {
      if (this.#onGap === undefined) throw new SeqGapError(this.#what, after, seq);
      this.#onGap({ after, seq });
    }
    this.#cursor.take(seq);
    return true;
  }

  #checkAborted(): void {
    if (!this.#signal?.aborted) return;
    if (this.#buffer !== undefined) this.#buffer = [];
    throw new AbortError(this.#what, { cause: this.#signal.reason });
  }
}
