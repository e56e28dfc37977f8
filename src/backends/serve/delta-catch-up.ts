/**
 * Deltas come on the live stream, whole texts and the turn's end on the durable one; the two
 * connections are not ordered against each other, so a turn's last deltas often arrive after
 * its end, too late for whoever reads the turn. This holds a `turn.ended` (and what follows
 * it) until the deltas seen cover the turn's ended texts, for a bounded time: a lost delta
 * costs that much latency, never the end.
 */
import type { CanonicalEvent } from "../../events/canonical.js";

export const DELTA_CATCH_UP_MS = 500;

export class DeltaCatchUp {
  readonly #out: (event: CanonicalEvent) => void;
  readonly #boundMs: number;
  /** Characters seen in deltas, and the length of the whole text, by part. */
  readonly #deltas = new Map<string, number>();
  #ended = new Map<string, number>();
  /** A held `turn.ended` and every durable event after it, in order. */
  #held: CanonicalEvent[] | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** After `flush()`: everything passes straight through. */
  #closed = false;

  constructor(out: (event: CanonicalEvent) => void, boundMs = DELTA_CATCH_UP_MS) {
    this.#out = out;
    this.#boundMs = boundMs;
  }

  push(event: CanonicalEvent): void {
    if (this.#closed) {
      this.#out(event);
      return;
    }
    if (event.type === "text.delta") {
      const seen = this.#deltas.get(event.data.partId) ?? 0;
      this.#deltas.set(event.data.partId, seen + event.data.delta.length);
      this.#out(event);
      if (this.#held !== undefined && this.#caughtUp()) this.#flush();
      return;
    }
    if (this.#held !== undefined) {
      this.#held.push(event);
      return;
    }
    if (event.type === "text.ended") this.#ended.set(event.data.partId, event.data.text.length);
    if (event.type === "turn.ended" && !this.#caughtUp()) {
      this.#held = [event];
      this.#timer = setTimeout(() => this.#flush(), this.#boundMs);
      this.#timer.unref();
      return;
    }
    this.#out(event);
    if (event.type === "turn.ended") this.#forgetTurn();
  }

  /** Lets everything held go, and holds nothing any more (the session is closing). */
  flush(): void {
    this.#closed = true;
    if (this.#held !== undefined) this.#flush();
  }

  #caughtUp(): boolean {
    for (const [partId, length] of this.#ended) {
      if ((this.#deltas.get(partId) ?? 0) < length) return false;
    }
    return true;
  }

  #flush(): void {
    clearTimeout(this.#timer);
    const held = this.#held ?? [];
    this.#held = undefined;
    const [end, ...after] = held;
    if (end !== undefined) this.#out(end);
    this.#forgetTurn();
    for (const event of after) this.push(event);
  }

  /** Forgets the ended turn's parts; deltas of parts still going (a next turn's) are kept. */
  #forgetTurn(): void {
    for (const partId of this.#ended.keys()) this.#deltas.delete(partId);
    this.#ended = new Map();
  }
}
