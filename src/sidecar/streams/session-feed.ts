/**
 * Fan-out: ONE reader of an open session's events feeding all its subscribers, so N clients
 * cost one read of the session (and the session one upstream stream, whoever listens). Every
 * member is handed each event in the same synchronous pass, so all see the same order.
 *
 * The reader starts live, after the session's last seq when the feed is made; each member
 * catches up on what it missed from the kept events, and on what the parts under way have
 * streamed so far (see `feed-member.ts` for the join). The
 * feed ends when the session closes (its members are told), when reading fails, or when its
 * last member leaves.
 */
import type { CanonicalEvent } from "../../events/canonical.js";
import { StreamedSoFar } from "../../events/streamed-so-far.js";
import { type Logger, silentLogger } from "../../util/logger.js";
import { FeedMember } from "./feed-member.js";
import {
  type FeedEnd,
  type FeedMembership,
  FeedRequestError,
  type FeedSource,
  type FeedSubscriber,
} from "./feed-types.js";

export interface SessionFeedOptions {
  logger?: Logger;
  /** Told once when the feed stops (its session closed, reading failed, or nobody is left). */
  onStop?: () => void;
  /** Live events a joining subscriber may hold (default `JOIN_BUFFER_LIMIT`; tests make it small). */
  joinBufferLimit?: number;
}

export class SessionFeed {
  readonly source: FeedSource;
  readonly #members = new Set<FeedMember>();
  readonly #logger: Logger;
  readonly #onStop: () => void;
  readonly #joinBufferLimit: number | undefined;
  readonly #stopReader = new AbortController();
  /** The last durable seq the reader handed out (or the session's last seq when it started). */
  #position: number;
  /**
   * The text of the parts under way, from the deltas handed out (the session's own read gives
   * the feed's reader what streamed before it started, so this is whole).
   */
  readonly #streamed = new StreamedSoFar();
  #stopped = false;

  constructor(source: FeedSource, options: SessionFeedOptions = {}) {
    this.source = source;
    this.#logger = options.logger ?? silentLogger;
    this.#onStop = options.onStop ?? (() => {});
    this.#joinBufferLimit = options.joinBufferLimit;
    this.#position = source.lastSeq;
    void this.#read();
  }

  /** False once the feed stopped: a new subscription needs a new feed. */
  get running(): boolean {
    return !this.#stopped;
  }

  /** How many subscribers it feeds. */
  get size(): number {
    return this.#members.size;
  }

  /**
   * Adds a subscriber that has every durable event up to `after` (0: none). Throws a
   * `FeedRequestError` when `after` is past the session's last seq (the client's stream is
   * from another store, or this one lost events): nothing could ever join it up.
   */
  join(subscriber: FeedSubscriber, after: number): FeedMembership {
    if (this.#stopped) throw new Error("this session feed has stopped; open a new one");
    const lastSeq = this.source.lastSeq;
    if (after > lastSeq) {
      throw new FeedRequestError(
        "after_out_of_range",
        `after ${after} is past the last seq of session ${this.source.id} (${lastSeq}): ` +
          `resume with after <= ${lastSeq} (after 0 replays the whole session)`,
      );
    }
    const position = this.#position;
    const member = new FeedMember({
      subscriber,
      after,
      position,
      logger: this.#logger,
      ...(this.#joinBufferLimit === undefined ? {} : { bufferLimit: this.#joinBufferLimit }),
      gone: (gone) => this.#forget(gone),
    });
    this.#members.add(member);
    void member.readBacklog(this.source, after, position, {
      position: () => this.#position,
      streamedSoFar: () => this.#streamed.catchUp(),
    });
    return { leave: () => member.leave() };
  }

  /** Stops the reader; members are told `end` (none when the last one left). */
  stop(end?: FeedEnd): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#stopReader.abort();
    const members = [...this.#members];
    this.#members.clear();
    if (end !== undefined) for (const member of members) member.end(end);
    this.#onStop();
  }

  async #read(): Promise<void> {
    const signal = this.#stopReader.signal;
    try {
      for await (const event of this.source.events({ after: this.#position, signal })) {
        this.#handOut(event);
        if (this.#stopped) return;
      }
      this.stop({ reason: "session-closed" });
    } catch (error) {
      if (signal.aborted) return; // stopped on purpose
      this.#logger.warn("reading a session's events for its subscribers failed", {
        sessionId: this.source.id,
        error,
      });
      this.stop({ reason: "failed", error });
    }
  }

  #handOut(event: CanonicalEvent): void {
    if (event.durable && event.seq !== undefined) this.#position = event.seq;
    this.#streamed.fold(event);
    // A snapshot: a member may leave (or be ended) while it is handed the event.
    for (const member of [...this.#members]) member.push(event, this.#position);
  }

  #forget(member: FeedMember): void {
    if (!this.#members.delete(member)) return;
    if (this.#members.size === 0) this.stop();
  }
}
