/**
 * One subscriber of a session feed, and the join that makes its stream whole: the kept
 * durable events it missed, the caught-up marker, then the feed's live events, with no gap and
 * no duplicate at the switch.
 *
 * The join, for a subscriber with `after` that arrives when the feed's reader has handed out
 * everything up to seq `position`:
 * - from that moment the member buffers every event the feed hands out (they all follow
 *   `position` in the feed's order);
 * - meanwhile the kept durable events in `(after, position]` are read from the session (they are
 *   stored before the feed ever sees them) and handed out as they are read;
 * - once that read is done and the feed has passed `target = max(after, position)`, the buffer
 *   up to and including the durable event numbered `target` is dropped (the subscriber has it
 *   already: it came with `after`), `caughtUp(target)` goes out, then the rest of the buffer
 *   but its deltas, then what the parts under way have streamed so far, as one delta each
 *   (the feed's `StreamedSoFar`, which has the buffer's deltas: a page opened mid-part shows
 *   the part's text at once, and the deltas it gets still join to the part's value), and from
 *   then on every event the feed hands out. The buffer's deltas of a part that has ended are
 *   not needed: its end carries the whole text.
 */
import type { CanonicalEvent } from "../../events/canonical.js";
import { isDelta } from "../../events/streamed-so-far.js";
import type { Logger } from "../../util/logger.js";
import type { FeedEnd, FeedSource, FeedSubscriber } from "./feed-types.js";

type MemberState = "joining" | "live" | "gone";

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
  /** Events the feed handed out while the kept ones were read. */
  #buffer: CanonicalEvent[] = [];
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
    /** Told once when this member leaves the feed, whatever the cause. */
    gone: (member: FeedMember) => void;
  }) {
    this.#subscriber = fields.subscriber;
    this.#logger = fields.logger;
    this.#target = Math.max(fields.after, fields.position);
    this.#gone = fields.gone;
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
          this.#call(() => this.#subscriber.event(event));
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
    if (this.#state === "live") {
      this.#call(() => this.#subscriber.event(event));
      return;
    }
    if (this.#state === "gone") return;
    this.#buffer.push(event);
    this.#joinIfReady(position);
  }

  #joinIfReady(position: number): void {
    if (this.#state !== "joining" || !this.#backlogRead || position < this.#target) return;
    const buffered = this.#buffer;
    this.#buffer = [];
    // What the subscriber has already: up to the durable event numbered `target`, and the
    // ephemeral events before it.
    let start = 0;
    buffered.forEach((event, index) => {
      if (event.durable && (event.seq ?? 0) <= this.#target) start = index + 1;
    });
    this.#state = "live";
    this.#call(() => this.#subscriber.caughtUp(this.#target));
    const soFar = this.#feed?.streamedSoFar() ?? [];
    for (const event of [...buffered.slice(start).filter((e) => !isDelta(e)), ...soFar]) {
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
    this.#buffer = [];
    this.#stopBacklog.abort();
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
