/**
 * One session's subscription on the shared socket, feeding every local subscriber of that
 * session. The wire subscription starts after the lowest seq taken among the subscribers that take
 * events; each subscriber drops the durable events it took already.
 *
 * Subscribing again on a live socket (a subscriber that was detached wants older events, or
 * one joins with an older `after`) goes through a barrier: `unsubscribe`, then a `ping`, and
 * only after its `pong` the new `subscribe`. The sidecar answers in order, so every event that
 * arrives before the pong belongs to the old subscription and is ignored: without this, an
 * event of the old subscription still in flight would reach a subscriber that expects older
 * ones first, and the events in between would be skipped.
 */
import type { CanonicalEvent } from "../../events/canonical.js";
import { assertNever } from "../../util/assert-never.js";
import type { EventSubscription } from "./event-subscription.js";

/** What the feed sends; the socket fills in the wire format. */
export interface FeedWire {
  subscribe(sessionId: string, after: number): void;
  unsubscribe(sessionId: string): void;
  /** Sends a ping; returns its id (the pong with it closes the barrier). */
  barrier(): string;
}

type WireState =
  | { kind: "off" }
  | { kind: "draining"; pingId: string }
  | { kind: "on"; after: number; position: number; caughtUp: boolean };

export class SessionFeed {
  readonly sessionId: string;
  readonly subscribers = new Set<EventSubscription>();
  #wire: WireState = { kind: "off" };

  constructor(sessionId: string) {
    this.sessionId = sessionId;
  }

  /** The socket (re)opened: nothing is subscribed on it yet. */
  socketOpened(wire: FeedWire): void {
    this.#wire = { kind: "off" };
    this.refresh(wire);
  }

  socketClosed(): void {
    this.#wire = { kind: "off" };
  }

  /** Brings the wire subscription in line with what the subscribers need. */
  refresh(wire: FeedWire | undefined): void {
    if (wire === undefined) return;
    const wanted = this.#wantedAfter();
    const state = this.#wire;
    switch (state.kind) {
      case "draining":
        return; // the pong decides
      case "off":
        if (wanted !== undefined) {
          wire.subscribe(this.sessionId, wanted);
          this.#wire = { kind: "on", after: wanted, position: wanted, caughtUp: false };
        }
        return;
      case "on":
        if (wanted === undefined || wanted < state.position) {
          wire.unsubscribe(this.sessionId);
          this.#wire = { kind: "draining", pingId: wire.barrier() };
        } else if (state.caughtUp) {
          // A subscriber that joined at or past where the wire is, is caught up already.
          for (const subscriber of this.subscribers) subscriber.markCaughtUp(state.position);
        }
        return;
      default:
        assertNever(state);
    }
  }

  /** A pong arrived; true when it closed this feed's barrier. */
  pong(id: string | number | undefined, wire: FeedWire): boolean {
    if (this.#wire.kind !== "draining" || this.#wire.pingId !== id) return false;
    this.#wire = { kind: "off" };
    this.refresh(wire);
    return true;
  }

  /** Whether nothing is subscribed and no subscriber is left: the socket can forget it. */
  get finished(): boolean {
    return this.subscribers.size === 0 && this.#wire.kind === "off";
  }

  event(event: CanonicalEvent): void {
    const state = this.#wire;
    if (state.kind !== "on") return;
    if (event.durable && event.seq !== undefined && event.seq > state.position) {
      state.position = event.seq;
    }
    for (const subscriber of [...this.subscribers]) subscriber.offer(event);
  }

  caughtUp(seq: number): void {
    const state = this.#wire;
    if (state.kind !== "on") return;
    state.caughtUp = true;
    state.position = Math.max(state.position, seq);
    for (const subscriber of this.subscribers) subscriber.markCaughtUp(seq);
  }

  dropped(count: number): void {
    if (this.#wire.kind !== "on") return;
    for (const subscriber of this.subscribers) subscriber.countDropped(count);
  }

  /** The sidecar refused the subscription: every subscriber ends with `error`. */
  fail(error: unknown): void {
    if (this.#wire.kind === "draining") return; // about an old subscription
    this.#wire = { kind: "off" };
    for (const subscriber of [...this.subscribers]) subscriber.fail(error);
  }

  /** The lowest seq taken among the subscribers taking events; undefined when none does. */
  #wantedAfter(): number | undefined {
    let wanted: number | undefined;
    for (const subscriber of this.subscribers) {
      if (!subscriber.taking) continue;
      wanted = wanted === undefined ? subscriber.takenSeq : Math.min(wanted, subscriber.takenSeq);
    }
    return wanted;
  }
}
