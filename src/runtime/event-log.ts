/**
 * A session's canonical events: durable ones numbered and kept (in the store, when there is
 * one, which numbers them in the same transaction as it saves the upstream cursor), ephemeral
 * ones passed to whoever is listening.
 *
 * Memory stays bounded however long the session runs: the log holds no history of its own.
 * Live events are linked one to the next and the log keeps only the last link, so an event is
 * held only while some reader has yet to pass it. Reading from a seq pages the kept events
 * with `seq` up to the last one numbered when the read began, then follows the links from
 * there: no gap and no duplicate at the switch.
 */
import { AbortError, UsageError } from "../errors.js";
import type { CanonicalEvent } from "../events/canonical.js";
import type { Store } from "../store/store.js";
import { ChangeNotifier } from "../util/change-notifier.js";
import { type Logger, silentLogger } from "../util/logger.js";
import { type DurableEvents, memoryEvents, storeEvents } from "./durable-events.js";

/** How many kept events a replay reads at a time (default). */
const PAGE = 256;

/**
 * How many of the latest stored event ids the log remembers: a resumed stream delivers again
 * only what came after the stored cursor, so a re-delivery is recent, and while the store fails
 * these ids are how the log still tells it from a new event.
 */
const RECENT_IDS = 128;

/** One event and, once there is one, the next: a reader holds its place, the log only the end. */
interface Link {
  readonly event?: CanonicalEvent;
  next?: Link;
}

/** A durable event the store could not keep yet, numbered already. */
interface Unstored {
  event: CanonicalEvent;
  cursor: string | undefined;
}

export interface EventLogOptions {
  /** Where durable events are kept (default: in memory, durable events only). */
  store?: { store: Store; sessionId: string };
  logger?: Logger;
  /** How many kept events a replay reads at a time (default 256). */
  pageSize?: number;
}

export class EventLog {
  /** The last event appended (an empty link before the first). */
  #last: Link = {};
  #seq = 0;
  readonly #changes = new ChangeNotifier();
  #closed = false;
  readonly #kept: DurableEvents;
  readonly #logger: Logger;
  readonly #fields: Record<string, unknown>;
  /**
   * Durable events the store failed to keep, oldest first, with the seqs they were given. The
   * next append writes them first (in one transaction, with the last one's cursor), so that the
   * store numbers them as they were numbered here and no seq is ever given twice.
   */
  readonly #unstored: Unstored[] = [];
  /** The ids of the latest stored events, a ring of `RECENT_IDS`. */
  readonly #recentIds: string[] = [];
  #recentAt = 0;
  readonly #pageSize: number;

  constructor(options: EventLogOptions = {}) {
    const store = options.store;
    this.#kept = store === undefined ? memoryEvents() : storeEvents(store.store, store.sessionId);
    this.#logger = options.logger ?? silentLogger;
    this.#fields = store === undefined ? {} : { sessionId: store.sessionId };
    this.#pageSize = options.pageSize ?? PAGE;
    // A log opened again on a session the store has events of numbers on from them.
    this.#seq = store === undefined ? 0 : store.store.lastSeq(store.sessionId);
    if (!Number.isSafeInteger(this.#pageSize) || this.#pageSize < 1) {
      throw new UsageError(`pageSize must be a whole number above 0, not ${options.pageSize}`);
    }
  }

  /** Events kept before (an adopted session's transcript): read as if appended, not stored again. */
  seed(events: readonly CanonicalEvent[]): void {
    this.#kept.seed(events);
    for (const event of events) {
      this.#seq = Math.max(this.#seq, event.seq ?? 0);
      if (event.durable) this.#remember(event.id);
    }
    this.#changes.notify();
  }

  /**
   * Appends an event, numbering (and storing) it if durable, with the upstream `cursor` it was
   * read at. Returns it as stored, or undefined for a durable event already kept (a resumed
   * stream delivers again what it had delivered before).
   */
  append(event: CanonicalEvent, cursor?: string): CanonicalEvent | undefined {
    const stored = event.durable ? this.#keep(event, cursor) : event;
    if (stored === undefined) return undefined;
    const link: Link = { event: stored };
    this.#last.next = link;
    this.#last = link;
    this.#changes.notify();
    return stored;
  }

  /**
   * Stores a durable event. A store that fails (disk full, locked too long, closed) costs the
   * event its persistence for now, not the session: it is numbered here, reported, and written
   * before the next event, in order.
   */
  #keep(event: CanonicalEvent, cursor: string | undefined): CanonicalEvent | undefined {
    if (this.#unstored.some((unstored) => unstored.event.id === event.id)) return undefined;
    if (this.#unstored.length > 0 && !this.#writeUnstored()) {
      if (this.#recentIds.includes(event.id)) return undefined; // delivered again: kept already
      return this.#holdUnstored(event, cursor);
    }
    let stored: CanonicalEvent | undefined;
    try {
      stored = this.#kept.append([event], cursor)[0];
    } catch (error) {
      if (this.#recentIds.includes(event.id)) return undefined; // delivered again: kept already
      this.#logger.error(
        "the store could not keep an event; it is held in memory and written with the next one",
        { ...this.#fields, seq: this.#seq + 1, type: event.type, error },
      );
      return this.#holdUnstored(event, cursor);
    }
    if (stored === undefined) return undefined; // kept already
    this.#checkSeq(stored, this.#seq + 1);
    this.#seq = Math.max(this.#seq, stored.seq ?? this.#seq + 1);
    this.#remember(stored.id);
    return stored;
  }

  /** Numbers an event the store could not keep, to be written before the next one. */
  #holdUnstored(event: CanonicalEvent, cursor: string | undefined): CanonicalEvent {
    const numbered = { ...event, seq: this.#seq + 1 } as CanonicalEvent;
    this.#unstored.push({ event: numbered, cursor });
    this.#seq += 1;
    return numbered;
  }

  #remember(id: string): void {
    this.#recentIds[this.#recentAt] = id;
    this.#recentAt = (this.#recentAt + 1) % RECENT_IDS;
  }

  /** Writes the events the store failed to keep, in one go; false if it fails again. */
  #writeUnstored(): boolean {
    const cursor = this.#unstored.at(-1)?.cursor;
    let stored: CanonicalEvent[];
    try {
      stored = this.#kept.append(
        this.#unstored.map(({ event }) => event),
        cursor,
      );
    } catch (error) {
      this.#logger.debug("the store still fails", {
        ...this.#fields,
        unstored: this.#unstored.length,
        error,
      });
      return false;
    }
    const numbered = new Map(this.#unstored.map(({ event }) => [event.id, event.seq ?? 0]));
    for (const event of stored) {
      this.#checkSeq(event, numbered.get(event.id) ?? 0);
      this.#remember(event.id);
    }
    this.#logger.info("the store kept the events it had failed to keep", {
      ...this.#fields,
      events: this.#unstored.length,
    });
    this.#unstored.length = 0;
    return true;
  }

  /** The store numbers on its own: say so if it disagrees with the seq readers were given. */
  #checkSeq(stored: CanonicalEvent, expected: number): void {
    if (stored.seq === expected) return;
    this.#logger.error("the store numbered an event differently from the live stream", {
      ...this.#fields,
      id: stored.id,
      stored: stored.seq,
      live: expected,
    });
  }

  /** The last durable seq. */
  get lastSeq(): number {
    return this.#seq;
  }

  /** Durable events numbered but not in the store yet (it failed; they are written next time). */
  get unstored(): number {
    return this.#unstored.length;
  }

  /**
   * Kept durable events with `after < seq <= upTo`, at most `limit`, in `seq` order: from the
   * store, and from memory for those it could not keep yet.
   */
  durableBetween(after: number, upTo: number, limit: number): CanonicalEvent[] {
    const firstUnstored = this.#unstored[0]?.event.seq ?? Number.POSITIVE_INFINITY;
    const inRange = (event: CanonicalEvent): boolean =>
      (event.seq ?? 0) > after && (event.seq ?? 0) <= upTo;
    if (after + 1 >= firstUnstored) {
      return this.#unstored
        .map(({ event }) => event)
        .filter(inRange)
        .slice(0, limit);
    }
    return this.#kept
      .read(after, limit)
      .filter((event) => inRange(event) && (event.seq ?? 0) < firstUnstored);
  }

  /** Durable events kept so far. */
  durable(): CanonicalEvent[] {
    const events: CanonicalEvent[] = [];
    for (let page = this.#page(0); page.length > 0; page = this.#page(events.at(-1)?.seq ?? 0)) {
      events.push(...page);
    }
    return events;
  }

  #page(after: number): CanonicalEvent[] {
    return this.durableBetween(after, this.#seq, this.#pageSize);
  }

  /**
   * Stops live reads (they end quietly). Events the store failed to keep get a last try; if it
   * fails again the transcript lacks them, which is logged.
   */
  close(): void {
    this.#closed = true;
    if (this.#unstored.length > 0 && !this.#writeUnstored()) {
      const seqs = this.#unstored.map(({ event }) => event.seq);
      this.#logger.error("the store could not keep these events; the transcript lacks them", {
        ...this.#fields,
        from: seqs[0],
        to: seqs.at(-1),
      });
    }
    this.#changes.notify();
  }

  /**
   * Durable events with `seq > after` already kept, then every new event as it arrives
   * (ephemeral ones too). Ends when the log closes; aborting rejects with AbortError.
   */
  async *read(after = 0, signal?: AbortSignal): AsyncIterable<CanonicalEvent> {
    const what = "reading session events";
    // The switch: everything linked after `link` is live; everything numbered up to `upTo`
    // is read from what is kept.
    let link = this.#last;
    const upTo = this.#seq;
    let seen = after;
    while (seen < upTo) {
      if (signal?.aborted) throw new AbortError(what);
      const page = this.durableBetween(seen, upTo, this.#pageSize);
      if (page.length === 0) break;
      for (const event of page) {
        seen = event.seq ?? seen;
        yield event;
      }
    }
    for (;;) {
      while (link.next !== undefined) {
        link = link.next;
        if (link.event !== undefined) yield link.event;
      }
      if (this.#closed) return;
      await this.#changes.wait(signal, what);
    }
  }
}
