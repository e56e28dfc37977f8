/**
 * One subscription as a client receives it, whatever carries it (a WebSocket, an SSE
 * response): the feed's calls become messages written to the connection, under the
 * slow-consumer policy (`slow-consumer.ts`). Skipped ephemeral events are announced with one
 * `dropped` notice just before the next event that goes out, so the client knows where the gap is.
 */
import type { CanonicalEvent } from "../../events/canonical.js";
import { assertNever } from "../../util/assert-never.js";
import type { FeedEnd, FeedSubscriber } from "./feed-types.js";
import { type BacklogBounds, decideForBacklog } from "./slow-consumer.js";
import type { StreamMetrics, StreamTransport } from "./stream-metrics.js";

/** Where one subscription's messages are written (framing is the transport's). */
export interface StreamOutput {
  /** Bytes written to the connection and not sent yet (shared by its subscriptions). */
  unsent(): number;
  event(event: CanonicalEvent): void;
  caughtUp(seq: number): void;
  dropped(count: number): void;
  ended(end: FeedEnd): void;
  /**
   * The client is too far behind: the connection is to be closed, telling it to resume from
   * `lastSeq` (the last durable seq written to it; undefined when none was).
   */
  overloaded(lastSeq: number | undefined): void;
}

export class OutboundStream implements FeedSubscriber {
  readonly #output: StreamOutput;
  readonly #bounds: BacklogBounds;
  readonly #metrics: StreamMetrics;
  readonly #transport: StreamTransport;
  #lastSeq: number | undefined;
  #dropped = 0;
  #overloaded = false;

  constructor(fields: {
    output: StreamOutput;
    bounds: BacklogBounds;
    metrics: StreamMetrics;
    transport: StreamTransport;
    /** The seq the client resumes after (it has everything up to it). */
    after: number;
  }) {
    this.#output = fields.output;
    this.#bounds = fields.bounds;
    this.#metrics = fields.metrics;
    this.#transport = fields.transport;
    this.#lastSeq = fields.after > 0 ? fields.after : undefined;
  }

  /** The last durable seq written to the client (or the one it resumed after). */
  get lastSeq(): number | undefined {
    return this.#lastSeq;
  }

  event(event: CanonicalEvent): void {
    if (this.#overloaded) return;
    const decision = decideForBacklog(event, this.#output.unsent(), this.#bounds);
    switch (decision) {
      case "drop":
        this.#dropped += 1;
        this.#metrics.ephemeralDropped(this.#transport);
        return;
      case "disconnect":
        this.#overloaded = true;
        this.#metrics.slowConsumerDisconnected(this.#transport);
        this.#output.overloaded(this.#lastSeq);
        return;
      case "send":
        this.#flushDropped();
        this.#output.event(event);
        if (event.durable && event.seq !== undefined) this.#lastSeq = event.seq;
        this.#metrics.eventSent(this.#transport, event);
        return;
      default:
        assertNever(decision, "backlog decision");
    }
  }

  caughtUp(seq: number): void {
    if (this.#overloaded) return;
    if (seq > 0) this.#lastSeq = seq;
    this.#output.caughtUp(seq);
  }

  ended(end: FeedEnd): void {
    if (this.#overloaded) return;
    this.#flushDropped();
    this.#output.ended(end);
  }

  #flushDropped(): void {
    if (this.#dropped === 0) return;
    const count = this.#dropped;
    this.#dropped = 0;
    this.#output.dropped(count);
  }
}
