/**
 * A session's canonical events: durable ones numbered and kept (in the store, when there is
 * one, which numbers them in the same transaction as it saves the upstream cursor), ephemeral
 * ones passed to whoever is listening. Reading from a seq gives the kept events after it, then
 * the live ones, with no gap and no duplicate at the switch (both come from the same array).
 */
import type { CanonicalEvent } from "../events/canonical.js";
import type { Store } from "../store/store.js";
import { ChangeNotifier } from "../util/change-notifier.js";

export class EventLog {
  /** Every event in arrival order; durable ones carry `seq`. */
  readonly #events: CanonicalEvent[] = [];
  #seq = 0;
  readonly #changes = new ChangeNotifier();
  #closed = false;
  readonly #store: { store: Store; sessionId: string } | undefined;
  readonly #onStoreError: (error: unknown) => void;

  constructor(
    store?: { store: Store; sessionId: string },
    onStoreError: (error: unknown) => void = () => {},
  ) {
    this.#store = store;
    this.#onStoreError = onStoreError;
  }

  /** Events kept before (an adopted session's transcript): read as if appended, not stored again. */
  seed(events: readonly CanonicalEvent[]): void {
    for (const event of events) {
      this.#events.push(event);
      this.#seq = Math.max(this.#seq, event.seq ?? 0);
    }
    this.#changes.notify();
  }

  /**
   * Appends an event, numbering (and storing) it if durable, with the upstream `cursor` it was
   * read at. Returns it as stored, or undefined for a durable event already kept (a resumed
   * stream delivers again what it had delivered before).
   */
  append(event: CanonicalEvent, cursor?: string): CanonicalEvent | undefined {
    let stored: CanonicalEvent | undefined = event;
    if (event.durable) {
      stored = this.#keep(event, cursor);
      if (stored === undefined) return undefined;
      this.#seq = stored.seq ?? this.#seq + 1;
    }
    this.#events.push(stored);
    this.#changes.notify();
    return stored;
  }

  /**
   * Stores a durable event; a store that fails (disk full, locked too long, closed) costs the
   * event its persistence, not the session: it is numbered in memory and the failure reported.
   */
  #keep(event: CanonicalEvent, cursor: string | undefined): CanonicalEvent | undefined {
    const inMemory = () => ({ ...event, seq: this.#seq + 1 }) as CanonicalEvent;
    if (this.#store === undefined) return inMemory();
    try {
      return this.#store.store.append(this.#store.sessionId, [event], cursor)[0];
    } catch (error) {
      this.#onStoreError(error);
      return inMemory();
    }
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
