/**
 * One subscriber of a session feed, and the join that makes its stream whole: the kept
 * durable events it missed, the caught-up marker, then the feed's live events, with no gap and
 * no duplicate at the switch.
 *
 * The seq bookkeeping is the `ReplaySeam`'s (util/replay-seam.ts); what is the feed's own is
 * when the switch may happen and what the parts under way have streamed. The join, for a
 * subscriber with `after` that arrives when the feed's reader has handed out everything up to
 * seq `position`:
 * - from that moment the member buffers every event the feed hands out but the deltas (they
 *   all follow `position` in the feed's order), at most `JOIN_BUFFER_LIMIT` of them: past it
 *   the subscription ends (`failed`, a `ReplayOverflowError`) and the client subscribes again
 *   from its last seq, rather than the sidecar holding a session's output for a slow read;
 * - meanwhile the kept durable events in `(after, position]` are read from the session (they are
 *   stored before the feed ever sees them) and handed out as they are read;
 * - once that read is done and the feed has passed `target = max(after, position)`, the buffer
 *   up to and including the durable event numbered `target` is dropped (the subscriber has it
 *   already: it came with `after`), `caughtUp(target)` goes out, then the rest of the buffer,
 *   then what the parts under way have streamed so far, as one delta each
 *   (the feed's `StreamedSoFar`, which has the buffer's deltas: a page opened mid-part shows
 *   the part's text at once, and the deltas it gets still join to the part's value), and from
 *   then on every event the feed hands out. The buffer's deltas of a part that has ended are
 *   not needed: its end carries the whole text.
 * A hole in the seqs (the store lost kept events) ends the subscription (`failed`, a
 * `SeqGapError`) instead of handing out a stream with a gap.
 */
import type { CanonicalEvent } from "../../events/canonical.js";
import { isDelta } from "../../events/streamed-so-far.js";
import type { Logger } from "../../util/logger.js";
import { ReplaySeam } from "../../util/replay-seam.js";
import type { FeedEnd, FeedSource, FeedSubscriber } from "./feed-types.js";

type MemberState = "joining" | "live" | "gone";

/**
 * Events (deltas aside) a joining member holds while its kept events are read: far more than a
 * session makes while a backlog is paged, and a bound on what a slow store read can cost.
 */
export const JOIN_BUFFER_LIMIT = 10_000;

/** What a joining member reads of its feed, at each step. */
export interface FeedNow {
  /** The last durable seq the feed handed out. */
  position(): number;
  /** One delta per part under way with its text so far (`StreamedSoFar.catchUp`). */
  streamedSoFar(): CanonicalEvent[];
}

export class FeedMember {
  readonly #subscriber: FeedSubscriber;
  readonly #logger: Logger;
  #state: MemberState = "joining";
  /** Which events the subscriber lacks, and the live ones held while the kept ones are read. */
  readonly #seam: ReplaySeam<CanonicalEvent>;
  readonly #target: number;
  #backlogRead = false;
  #feed: FeedNow | undefined;
  readonly #stopBacklog = new AbortController();
  readonly #gone: (member: FeedMember) => void;

  constructor(fields: {
    subscriber: FeedSubscriber;
    after: number;
    position: number;
    logger: Logger;
    /** See `JOIN_BUFFER_LIMIT`. */
    bufferLimit?: number;
    /** Told once when this member leaves the feed, whatever the cause. */
    gone: (member: FeedMember) => void;
  }) {
    this.#subscriber = fields.subscriber;
    this.#logger = fields.logger;
    this.#target = Math.max(fields.after, fields.position);
    this.#gone = fields.gone;
    this.#seam = new ReplaySeam({
      after: fields.after,
      seqOf: (event) => (event.durable ? event.seq : undefined),
      bufferLimit: fields.bufferLimit ?? JOIN_BUFFER_LIMIT,
      signal: this.#stopBacklog.signal,
      what: "joining a session's feed",
    });
  }

  get gone(): boolean {
    return this.#state === "gone";
  }

  /**
   * Hands out the kept durable events in `(after, upTo]`, then joins the live stream as soon as
   * the feed has passed the target (`feed` is read at each step).
   */
  async readBacklog(source: FeedSource, after: number, upTo: number, feed: FeedNow) {
    this.#feed = feed;
    // Never a call back from inside `join`: the subscriber sets itself up (an SSE response
    // writes its headers) after joining, before its first event.
    await Promise.resolve();
    try {
      if (after < upTo) {
        const kept = source.events({ after, signal: this.#stopBacklog.signal });
        for await (const event of kept) {
          if (this.gone) return;
          // Past `upTo` the read has reached what the feed hands out (the buffer has it). Kept
          // events never run past a gap in the store, so this also ends a read that found one.
          if (!event.durable || (event.seq ?? 0) > upTo) break;
          if (this.#seam.kept(event)) this.#call(() => this.#subscriber.event(event));
          if ((event.seq ?? 0) >= upTo) break;
        }
      }
    } catch (error) {
      if (this.gone) return;
      this.end({ reason: "failed", error });
      return;
    }
    this.#backlogRead = true;
    this.#joinIfReady(feed.position());
  }

  /** An event the feed hands out (`position`: the feed's last durable seq, this one included). */
  push(event: CanonicalEvent, position: number): void {
    if (this.#state === "gone") return;
    // Joining, a delta is not held: what its part streamed goes out whole at the switch.
    if (this.#state === "joining" && isDelta(event)) {
      this.#joinIfReady(position);
      return;
    }
    let out: CanonicalEvent[];
    try {
      out = this.#seam.arrived(event);
    } catch (error) {
      this.end({ reason: "failed", error });
      return;
    }
    for (const next of out) this.#call(() => this.#subscriber.event(next));
    this.#joinIfReady(position);
  }

  #joinIfReady(position: number): void {
    if (this.#state !== "joining" || !this.#backlogRead || position < this.#target) return;
    let buffered: CanonicalEvent[];
    try {
      // What the subscriber lacks: after the durable event numbered `target` (it came with
      // `after` or the kept read), the ephemeral events before it dropped.
      buffered = this.#seam.goLive();
    } catch (error) {
      this.end({ reason: "failed", error });
      return;
    }
    this.#state = "live";
    this.#call(() => this.#subscriber.caughtUp(this.#target));
    const soFar = this.#feed?.streamedSoFar() ?? [];
    for (const event of [...buffered, ...soFar]) {
      if (this.#state !== "live") return;
      this.#call(() => this.#subscriber.event(event));
    }
  }

  /** The feed ended: tells the subscriber, once. */
  end(end: FeedEnd): void {
    if (this.#state === "gone") return;
    this.#leave();
    try {
      this.#subscriber.ended(end);
    } catch (error) {
      this.#logger.warn("a stream subscriber failed while told its feed ended", { error });
    }
  }

  /** The subscriber leaves (it unsubscribed or its connection closed): nothing more is said. */
  leave(): void {
    if (this.#state !== "gone") this.#leave();
  }

  #leave(): void {
    this.#state = "gone";
    this.#stopBacklog.abort(); // lets the seam's buffer go too
    this.#gone(this);
  }

  /** A subscriber that throws loses its subscription, never the feed or its other members. */
  #call(deliver: () => void): void {
    if (this.#state === "gone") return;
    try {
      deliver();
    } catch (error) {
      this.#logger.warn("a stream subscriber failed; its subscription ends", { error });
      this.end({ reason: "failed", error });
    }
  }
}
