/**
 * The shapes a session feed is built from, kept apart from the feed so that the WebSocket and
 * SSE routes (which implement `FeedSubscriber`) and the tests depend on these alone.
 */
import { OpencodeBridgeError } from "../../errors.js";
import type { CanonicalEvent } from "../../events/canonical.js";

/**
 * What a feed reads: one open session's canonical stream (a runtime `Session` fits). `events`
 * yields the kept durable events with `seq > after`, then live events (durable and ephemeral)
 * as they come, and ends when the session closes.
 */
export interface FeedSource {
  readonly id: string;
  /** The last durable seq the session has numbered (0 before the first). */
  readonly lastSeq: number;
  events(options: { after?: number; signal?: AbortSignal }): AsyncIterable<CanonicalEvent>;
}

/** Why a feed stopped handing out events to a subscriber. */
export type FeedEnd =
  /** The session closed (released, killed, or the sidecar stops): subscribe again once it is open. */
  | { reason: "session-closed" }
  /** Reading the session's events failed (the store, say). */
  | { reason: "failed"; error: unknown };

/**
 * Who receives a feed's events for one subscription. Calls come in this order: the kept
 * durable events after the subscriber's `after` (`event`), then `caughtUp` once, then live
 * events, durable and ephemeral, in the session's order; `ended` at most once, last.
 * A callback that throws ends that subscription (the others carry on).
 */
export interface FeedSubscriber {
  event(event: CanonicalEvent): void;
  /** Everything kept up to `seq` has been handed out; what follows is live. */
  caughtUp(seq: number): void;
  ended(end: FeedEnd): void;
}

/** One subscriber's place in a feed; `leave()` stops its events (idempotent). */
export interface FeedMembership {
  leave(): void;
}

/** A subscription the feed refuses, with a code the protocol's `error` message carries. */
export class FeedRequestError extends OpencodeBridgeError {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}
