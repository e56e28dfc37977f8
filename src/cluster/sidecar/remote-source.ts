/**
 * A session another sidecar drives, as this sidecar's stream routes read it: its committed
 * durable events from the cluster's durable feed (Postgres), in order, no gap, no duplicate,
 * from any seq. It fits the session feed (`FeedSource`) the WebSocket and SSE routes join, so
 * a client subscribed here receives the same durable events, the same `caught-up` and the
 * same resume rules as on the driver. A live read (one that starts at the session's head: the
 * session feed's reader) also gets the deltas relayed from the driver, merged under the
 * one-process rule (`delta-merge.ts`); a read of the past (a subscriber catching up) gets the
 * durable events only, as the store has them.
 */

import type { CanonicalEvent } from "../../events/canonical.js";
import type { FeedSource } from "../../sidecar/streams/feed-types.js";
import { type Logger, silentLogger } from "../../util/logger.js";
import type { DurableFeed } from "../durable-feed.js";
import { mergeRelayedDeltas, type RelayFollow } from "./delta-merge.js";

/** Where a remote session's deltas come from, when they are relayed. */
export interface RemoteDeltas {
  relay: RelayFollow;
  logger?: Logger;
}

export class RemoteSource implements FeedSource {
  readonly id: string;
  readonly #feed: DurableFeed;
  #lastSeq: number;
  #readers = 0;
  readonly #onIdle: () => void;
  readonly #deltas: RemoteDeltas | undefined;

  /**
   * `lastSeq`: the session's last committed seq, as read from the store just now; `onIdle`:
   * told when its last reader ends; `deltas`: the relay of its deltas (none: durable only).
   */
  constructor(
    id: string,
    feed: DurableFeed,
    lastSeq: number,
    onIdle: () => void = () => {},
    deltas?: RemoteDeltas,
  ) {
    this.id = id;
    this.#feed = feed;
    this.#lastSeq = lastSeq;
    this.#onIdle = onIdle;
    this.#deltas = deltas;
  }

  /** The last seq known here: what the store said, or the last one read since. */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** The store has committed up to `seq` (never moves back). */
  advanceTo(seq: number): void {
    if (seq > this.#lastSeq) this.#lastSeq = seq;
  }

  /**
   * The committed events after `after`, then each as it is committed, until `signal` aborts;
   * with the relayed deltas when the read starts at the head (`after` at the last seq known).
   */
  async *events(options: { after?: number; signal?: AbortSignal }): AsyncIterable<CanonicalEvent> {
    const signal = options.signal ?? new AbortController().signal;
    const after = options.after ?? 0;
    const durable = (until: AbortSignal) => this.#feed.follow(this.id, { after, signal: until });
    const deltas = this.#deltas;
    const events =
      deltas === undefined || after < this.#lastSeq
        ? durable(signal)
        : mergeRelayedDeltas(durable, deltas.relay, signal, deltas.logger ?? silentLogger);
    this.#readers += 1;
    try {
      for await (const event of events) {
        if (event.seq !== undefined) this.advanceTo(event.seq);
        yield event;
      }
    } finally {
      this.#readers -= 1;
      if (this.#readers === 0) this.#onIdle();
    }
  }
}
