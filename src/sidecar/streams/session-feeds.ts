/**
 * The sidecar's session feeds, one per open session that has subscribers: the WebSocket and
 * SSE routes join through here, so a session read by ten sockets and three SSE clients is
 * read once.
 */
import { type Logger, silentLogger } from "../../util/logger.js";
import type { FeedEnd, FeedMembership, FeedSource, FeedSubscriber } from "./feed-types.js";
import { SessionFeed } from "./session-feed.js";

export class SessionFeeds {
  readonly #feeds = new Map<string, SessionFeed>();
  readonly #logger: Logger;

  constructor(options: { logger?: Logger } = {}) {
    this.#logger = options.logger ?? silentLogger;
  }

  /** Joins `subscriber` to the feed of `source` (made on first use); see `SessionFeed.join`. */
  join(source: FeedSource, subscriber: FeedSubscriber, after: number): FeedMembership {
    return this.#feedOf(source).join(subscriber, after);
  }

  #feedOf(source: FeedSource): SessionFeed {
    const current = this.#feeds.get(source.id);
    // A session closed and opened again is a new source: its old feed has ended (or is about
    // to, once the old stream's end is read), and the new one must read the new session.
    if (current?.running && current.source === source) return current;
    const feed = new SessionFeed(source, {
      logger: this.#logger,
      onStop: () => {
        if (this.#feeds.get(source.id) === feed) this.#feeds.delete(source.id);
      },
    });
    this.#feeds.set(source.id, feed);
    return feed;
  }

  /** How many sessions are read for subscribers now. */
  get readers(): number {
    return this.#feeds.size;
  }

  /** Stops every feed, telling their subscribers `end` (the sidecar stops). */
  stopAll(end: FeedEnd): void {
    for (const feed of [...this.#feeds.values()]) feed.stop(end);
    this.#feeds.clear();
  }
}
