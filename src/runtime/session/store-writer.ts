/**
 * How an event log writes its durable events to the transcript store: one `append` (one
 * transaction, with the cursor) per batch, and what happens when the store fails. A store that
 * fails (disk full, locked too long, closed) costs the events their persistence for now, not the
 * session: they are numbered here, handed out, reported, and written before the next batch, in
 * order, so that the store numbers them as they were numbered here and no seq is given twice.
 */
import type { CanonicalEvent } from "../../events/canonical.js";
import type { Logger } from "../../util/logger.js";
import type { StoreEvents } from "./durable-events.js";

/**
 * How many of the latest stored event ids the writer remembers: a resumed stream delivers again
 * only what came after the stored cursor, so a re-delivery is recent, and while the store fails
 * these ids are how it still tells one from a new event.
 */
const RECENT_IDS = 128;

/** A durable event on its way to the store, with the upstream cursor it was read at. */
export interface Write {
  event: CanonicalEvent;
  cursor: string | undefined;
}

export class StoreWriter {
  readonly #kept: StoreEvents;
  readonly #logger: Logger;
  readonly #fields: Record<string, unknown>;
  /** Events the store failed to keep, oldest first, numbered already. */
  readonly #unstored: Write[] = [];
  /** The ids of the latest stored events, a ring of `RECENT_IDS`. */
  readonly #recentIds: string[] = [];
  #recentAt = 0;

  constructor(kept: StoreEvents, logger: Logger, fields: Record<string, unknown>) {
    this.#kept = kept;
    this.#logger = logger;
    this.#fields = fields;
  }

  /** The events the store could not keep yet, in seq order. */
  get unstored(): readonly Write[] {
    return this.#unstored;
  }

  remember(id: string): void {
    this.#recentIds[this.#recentAt] = id;
    this.#recentAt = (this.#recentAt + 1) % RECENT_IDS;
  }

  /**
   * Keeps `writes` (durable, in order; the log's last seq is `seq`) in one append. Resolves with
   * each event as it is to be handed out (numbered), or undefined for one kept already (a
   * re-delivery). Never rejects: a failure holds the events (see the file's header).
   */
  async write(writes: readonly Write[], seq: number): Promise<(CanonicalEvent | undefined)[]> {
    const held = new Set(this.#unstored.map(({ event }) => event.id));
    const fresh = writes.map((write) => (held.has(write.event.id) ? undefined : write));
    const toStore = fresh.filter((write) => write !== undefined);
    if (toStore.length === 0) return fresh.map(() => undefined);
    if (this.#unstored.length > 0 && !(await this.#writeUnstored())) {
      return this.#hold(fresh, seq);
    }
    let stored: CanonicalEvent[];
    try {
      stored = await this.#append(toStore);
    } catch (error) {
      this.#logger.error(
        "the store could not keep events; they are held in memory and written with the next ones",
        { ...this.#fields, seq: seq + 1, events: toStore.length, error },
      );
      return this.#hold(fresh, seq);
    }
    const byId = new Map(stored.map((event) => [event.id, event]));
    let expected = seq;
    return fresh.map((write) => {
      const event = write === undefined ? undefined : byId.get(write.event.id);
      if (event === undefined) return undefined; // kept already (or twice in this batch)
      byId.delete(event.id);
      this.#checkSeq(event, ++expected);
      this.remember(event.id);
      return event;
    });
  }

  /** Numbers the events the store could not keep, to be written before the next ones. */
  #hold(writes: readonly (Write | undefined)[], seq: number): (CanonicalEvent | undefined)[] {
    let next = seq;
    const numbered = new Set<string>();
    return writes.map((write) => {
      if (write === undefined) return undefined;
      const { event, cursor } = write;
      // Delivered again: kept already (or just now, earlier in this batch).
      if (this.#recentIds.includes(event.id) || numbered.has(event.id)) return undefined;
      numbered.add(event.id);
      const held = { ...event, seq: ++next } as CanonicalEvent;
      this.#unstored.push({ event: held, cursor });
      return held;
    });
  }

  /** Writes the events the store failed to keep, in one go; false if it fails again. */
  async #writeUnstored(): Promise<boolean> {
    const unstored = [...this.#unstored];
    let stored: CanonicalEvent[];
    try {
      stored = await this.#append(unstored);
    } catch (error) {
      this.#logger.debug("the store still fails", {
        ...this.#fields,
        unstored: unstored.length,
        error,
      });
      return false;
    }
    const numbered = new Map(unstored.map(({ event }) => [event.id, event.seq ?? 0]));
    for (const event of stored) {
      this.#checkSeq(event, numbered.get(event.id) ?? 0);
      this.remember(event.id);
    }
    this.#logger.info("the store kept the events it had failed to keep", {
      ...this.#fields,
      events: unstored.length,
    });
    // Only those written: a close that stopped waiting for the log's write retries beside it,
    // and what that write held meanwhile is still to be kept.
    const written = new Set(unstored);
    const rest = this.#unstored.filter((write) => !written.has(write));
    this.#unstored.splice(0, this.#unstored.length, ...rest);
    return true;
  }

  /** One append (one transaction) of `writes`, with the last cursor among them. */
  #append(writes: readonly Write[]): Promise<CanonicalEvent[]> {
    const cursor = writes.findLast((write) => write.cursor !== undefined)?.cursor;
    return this.#kept.append(
      writes.map(({ event }) => event),
      cursor,
    );
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

  /** A last try for the events the store could not keep; if it fails, the loss is logged. */
  async close(): Promise<void> {
    if (this.#unstored.length === 0) return;
    if ((await this.#writeUnstored()) && this.#unstored.length === 0) return;
    const seqs = this.#unstored.map(({ event }) => event.seq);
    this.#logger.error("the store could not keep these events; the transcript lacks them", {
      ...this.#fields,
      from: seqs[0],
      to: seqs.at(-1),
    });
  }
}
