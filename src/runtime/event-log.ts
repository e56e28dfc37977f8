/**
 * A session's canonical events in memory: durable ones numbered and kept, ephemeral ones
 * passed to whoever is listening. Reading from a seq gives the kept events after it, then the
 * live ones, with no gap and no duplicate at the switch (both come from the same array).
 */
import type { CanonicalEvent } from "../events/canonical.js";
import { ChangeNotifier } from "../util/change-notifier.js";

export class EventLog {
  /** Every event in arrival order; durable ones carry `seq`. */
  readonly #events: CanonicalEvent[] = [];
  #seq = 0;
  readonly #changes = new ChangeNotifier();
  #closed = false;

  /** Appends an event, numbering it if durable; returns it as stored. */
  append(event: CanonicalEvent): CanonicalEvent {
    const stored = event.durable ? ({ ...event, seq: ++this.#seq } as CanonicalEvent) : event;
    this.#events.push(stored);
    this.#changes.notify();
    return stored;
  }

  /** The last durable seq. */
  get lastSeq(): number {
    return this.#seq;
  }

  /** Durable events kept so far. */
  durable(): CanonicalEvent[] {
    return this.#events.filter((event) => event.durable);
  }

  /** Stops live reads (they end quietly). */
  close(): void {
    this.#closed = true;
    this.#changes.notify();
  }

  /**
   * Durable events with `seq > after` already kept, then every new event as it arrives
   * (ephemeral ones too). Ends when the log closes; aborting rejects with AbortError.
   */
  async *read(after = 0, signal?: AbortSignal): AsyncIterable<CanonicalEvent> {
    let index = 0;
    const start = this.#events.length;
    for (;;) {
      while (index < this.#events.length) {
        const event = this.#events[index++];
        if (event === undefined) continue;
        // Before the switch only kept (durable) events after the cursor; after it, everything.
        if (index <= start ? event.durable && (event.seq ?? 0) > after : true) yield event;
      }
      if (this.#closed) return;
      await this.#changes.wait(signal, "reading session events");
    }
  }
}
