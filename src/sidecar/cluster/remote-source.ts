/**
 * A session another sidecar drives, as this sidecar's stream routes read it: its committed
 * durable events from the cluster's durable feed (Postgres), in order, no gap, no duplicate,
 * from any seq. It fits the session feed (`FeedSource`) the WebSocket and SSE routes join, so
 * a client subscribed here receives the same durable events, the same `caught-up` and the
 * same resume rules as on the driver. Deltas are not relayed across sidecars yet: a remote
 * session's subscribers get no ephemeral events (docs/deployment.md).
 */
import type { DurableFeed } from "../../cluster/durable-feed.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import type { FeedSource } from "../streams/feed-types.js";

export class RemoteSource implements FeedSource {
  readonly id: string;
  readonly #feed: DurableFeed;
  #lastSeq: number;
  #readers = 0;
  readonly #onIdle: () => void;

  /** `lastSeq`: the session's last committed seq, as read from the store just now. */
  constructor(
    id: string,
    feed: DurableFeed,
    lastSeq: number /** Told when its last reader ends. */,
    onIdle: () => void = () => {},
  ) {
    this.id = id;
    this.#feed = feed;
    this.#lastSeq = lastSeq;
    this.#onIdle = onIdle;
  }

  /** The last seq known here: what the store said, or the last one read since. */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** The store has committed up to `seq` (never moves back). */
  advanceTo(seq: number): void {
    if (seq > this.#lastSeq) this.#lastSeq = seq;
  }

  /** The committed events after `after`, then each as it is committed, until `signal` aborts. */
  async *events(options: { after?: number; signal?: AbortSignal }): AsyncIterable<CanonicalEvent> {
    const signal = options.signal ?? new AbortController().signal;
    this.#readers += 1;
    try {
      for await (const event of this.#feed.follow(this.id, {
        after: options.after ?? 0,
        signal,
      })) {
        if (event.seq !== undefined) this.advanceTo(event.seq);
        yield event;
      }
    } finally {
      this.#readers -= 1;
      if (this.#readers === 0) this.#onIdle();
    }
  }
}
