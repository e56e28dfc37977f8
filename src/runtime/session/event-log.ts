/**
 * A session's canonical events: durable ones numbered and kept (in the store, when there is
 * one, which numbers them in the same transaction as it saves the upstream cursor), ephemeral
 * ones passed to whoever is listening.
 *
 * With a store, a durable event is handed out only once its transaction has committed, so that
 * no reader ever sees a seq that a crash could later give to a different event. The events that
 * arrive together (a native event's canonical events, and whatever comes while a commit is
 * under way) go to the store as ONE append, and per session nothing overtakes: an ephemeral
 * event (a text delta) that follows a durable one waits for its commit. Without a store, events
 * are handed out at once.
 *
 * Memory stays bounded however long the session runs: the log holds no history of its own.
 * Live events are linked one to the next and the log keeps only the last link, so an event is
 * held only while some reader has yet to pass it (or, with a store, while its commit is under
 * way). Reading from a seq pages the kept events with `seq` up to the last one handed out when
 * the read began, then follows the links from there: no gap and no duplicate at the switch
 * (the seqs are checked by a `ReplaySeam`, util/replay-seam.ts; the links are its buffer).
 * Deltas are not kept, but a reader that switches to live while a part streams is handed
 * what that part has streamed so far as one delta first (`StreamedSoFar`), so that its deltas
 * still join to the part's value: the log holds the text of the parts under way, no more.
 */
import { AbortError, UsageError } from "../../errors.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import { isDelta, StreamedSoFar } from "../../events/streamed-so-far.js";
import type { Store } from "../../store/store.js";
import { ChangeNotifier } from "../../util/change-notifier.js";
import { type Logger, silentLogger } from "../../util/logger.js";
import { ReplaySeam } from "../../util/replay-seam.js";
import { type DurableEvents, memoryEvents, storeEvents } from "./durable-events.js";
import { StoreWriter } from "./store-writer.js";

/** How many kept events a replay reads at a time (default). */
const PAGE = 256;

/** How long `close` waits for the commits under way before it gives up on them (logged). */
const CLOSE_WAIT_MS = 10_000;

/** One event and, once there is one, the next: a reader holds its place, the log only the end. */
interface Link {
  readonly event?: CanonicalEvent;
  next?: Link;
}

/** What `append` calls once the event is handed out: with it, or undefined (kept already). */
export type Appended = (stored: CanonicalEvent | undefined) => void;

/** An event waiting for the commit of the durable events before it (or its own). */
interface Queued {
  event: CanonicalEvent;
  cursor: string | undefined;
  appended: Appended | undefined;
}

export interface EventLogOptions {
  /** Where durable events are kept (default: in memory, durable events only). */
  store?: { store: Store; sessionId: string };
  logger?: Logger;
  /** How many kept events a replay reads at a time (default 256). */
  pageSize?: number;
}

export class EventLog {
  /** The last event handed out (an empty link before the first). */
  #last: Link = {};
  #seq = 0;
  /** The text of the parts under way, up to the last link. */
  readonly #streamed = new StreamedSoFar();
  readonly #changes = new ChangeNotifier();
  #closed = false;
  #closing: Promise<void> | undefined;
  readonly #kept: DurableEvents;
  /** With a store: how durable events get there. */
  readonly #writer: StoreWriter | undefined;
  readonly #logger: Logger;
  readonly #fields: Record<string, unknown>;
  /** Events waiting to be handed out, in append order (with a store only). */
  #queue: Queued[] = [];
  /** The loop that writes the queue's batches and hands them out, while it runs. */
  #draining: Promise<void> | undefined;
  /** How many events were queued, and how many of them are handed out (for `settled`). */
  #queued = 0;
  #handled = 0;
  readonly #settling: { upTo: number; resolve: () => void }[] = [];
  /** The store's last seq for this session, read once before anything is numbered. */
  #ready: Promise<void> | undefined;
  readonly #pageSize: number;

  constructor(options: EventLogOptions = {}) {
    const store = options.store;
    this.#logger = options.logger ?? silentLogger;
    this.#fields = store === undefined ? {} : { sessionId: store.sessionId };
    this.#pageSize = options.pageSize ?? PAGE;
    if (!Number.isSafeInteger(this.#pageSize) || this.#pageSize < 1) {
      throw new UsageError(`pageSize must be a whole number above 0, not ${options.pageSize}`);
    }
    if (store === undefined) {
      this.#kept = memoryEvents();
      this.#writer = undefined;
      return;
    }
    const kept = storeEvents(store.store, store.sessionId);
    this.#kept = kept;
    this.#writer = new StoreWriter(kept, this.#logger, this.#fields);
    // A log opened again on a session the store has events of numbers on from them.
    this.#ready = kept.lastSeq().then(
      (seq) => {
        this.#seq = Math.max(this.#seq, seq);
        this.#ready = undefined;
      },
      (error: unknown) => {
        this.#logger.error("cannot read the session's last seq from the store", {
          ...this.#fields,
          error,
        });
        this.#ready = undefined;
      },
    );
  }

  /** Events kept before (an adopted session's transcript): read as if appended, not stored again. */
  seed(events: readonly CanonicalEvent[]): void {
    if (this.#kept.kind === "memory") this.#kept.seed(events);
    for (const event of events) {
      this.#seq = Math.max(this.#seq, event.seq ?? 0);
      if (event.durable) this.#writer?.remember(event.id);
    }
    this.#changes.notify();
  }

  /**
   * Appends an event, numbering (and storing) it if durable, with the upstream `cursor` it was
   * read at. It is handed out to readers (and to `appended`, in append order) as stored, once
   * stored: at once without a store, after the commit with one. `appended` gets undefined for a
   * durable event already kept (a resumed stream delivers again what it had delivered before).
   */
  append(event: CanonicalEvent, cursor?: string, appended?: Appended): void {
    if (this.#kept.kind === "memory") {
      const stored = event.durable ? this.#kept.append([event])[0] : event;
      if (stored !== undefined) this.#handOut(stored);
      appended?.(stored);
      return;
    }
    if (!event.durable && this.#draining === undefined && this.#queue.length === 0) {
      this.#handOut(event); // nothing before it waits for a commit
      appended?.(event);
      return;
    }
    this.#queue.push({ event, cursor, appended });
    this.#queued += 1;
    this.#draining ??= this.#drain();
  }

  /** Resolves once every event appended so far is kept (committed) and handed out. */
  settled(): Promise<void> {
    if (this.#handled >= this.#queued) return Promise.resolve();
    return new Promise((resolve) => this.#settling.push({ upTo: this.#queued, resolve }));
  }

  #settle(all = false): void {
    for (let index = this.#settling.length - 1; index >= 0; index--) {
      const waiter = this.#settling[index];
      if (waiter === undefined || (!all && waiter.upTo > this.#handled)) continue;
      this.#settling.splice(index, 1);
      waiter.resolve();
    }
  }

  /** Like `append`, resolving with what `appended` would be given. */
  appended(event: CanonicalEvent, cursor?: string): Promise<CanonicalEvent | undefined> {
    return new Promise((resolve) => this.append(event, cursor, resolve));
  }

  #handOut(event: CanonicalEvent): void {
    if (event.seq !== undefined) this.#seq = Math.max(this.#seq, event.seq);
    this.#streamed.fold(event);
    const link: Link = { event };
    this.#last.next = link;
    this.#last = link;
    this.#changes.notify();
  }

  /**
   * Writes the queue, a batch at a time: everything queued goes to the store as one append,
   * then is handed out in order; what arrived meanwhile is the next batch.
   */
  async #drain(): Promise<void> {
    // One turn of the microtask queue: the other canonical events of the same native event,
    // which the backend publishes right after this one, join the batch.
    await Promise.resolve();
    if (this.#ready !== undefined) await this.#ready;
    const writer = this.#writer;
    for (;;) {
      const batch = this.#queue;
      if (batch.length === 0 || writer === undefined) {
        this.#draining = undefined;
        return;
      }
      this.#queue = [];
      const durable = batch.filter((queued) => queued.event.durable);
      const stored = durable.length === 0 ? [] : await writer.write(durable, this.#seq);
      let next = 0;
      for (const queued of batch) {
        const out = queued.event.durable ? stored[next++] : queued.event;
        if (out !== undefined) this.#handOut(out);
        try {
          queued.appended?.(out);
        } catch (error) {
          // The log's order must survive whatever a follower does with an event.
          this.#logger.error("handling an appended event failed", { ...this.#fields, error });
        }
      }
      this.#handled += batch.length;
      this.#settle();
    }
  }

  /** The last durable seq handed out. */
  get lastSeq(): number {
    return this.#seq;
  }

  /** Durable events numbered but not in the store yet (it failed; they are written next time). */
  get unstored(): number {
    return this.#writer?.unstored.length ?? 0;
  }

  /**
   * Kept durable events with `after < seq <= upTo`, at most `limit`, in `seq` order: from the
   * store, and from memory for those it could not keep yet.
   */
  async durableBetween(after: number, upTo: number, limit: number): Promise<CanonicalEvent[]> {
    const unstored = this.#writer?.unstored ?? [];
    const firstUnstored = unstored[0]?.event.seq ?? Number.POSITIVE_INFINITY;
    const inRange = (event: CanonicalEvent): boolean =>
      (event.seq ?? 0) > after && (event.seq ?? 0) <= upTo;
    if (after + 1 >= firstUnstored) {
      return unstored
        .map(({ event }) => event)
        .filter(inRange)
        .slice(0, limit);
    }
    const kept = await this.#kept.read(after, limit);
    return kept.filter((event) => inRange(event) && (event.seq ?? 0) < firstUnstored);
  }

  /** Durable events appended so far, once kept. */
  async durable(): Promise<CanonicalEvent[]> {
    await this.settled();
    if (this.#ready !== undefined) await this.#ready;
    const upTo = this.#seq;
    const events: CanonicalEvent[] = [];
    for (;;) {
      const page = await this.durableBetween(events.at(-1)?.seq ?? 0, upTo, this.#pageSize);
      if (page.length === 0) return events;
      events.push(...page);
    }
  }

  /**
   * Stops live reads (they end quietly) once what was appended is written (waiting at most
   * `CLOSE_WAIT_MS`). Events the store failed to keep get a last try; if it fails again the
   * transcript lacks them, which is logged. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const draining = this.#draining;
    if (draining !== undefined) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const gaveUp = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), CLOSE_WAIT_MS);
        timer.unref?.();
      });
      if (await Promise.race([draining.then(() => false), gaveUp])) {
        this.#logger.error("the store did not finish writing the session's events in time", {
          ...this.#fields,
          waitedMs: CLOSE_WAIT_MS,
          queued: this.#queue.length,
        });
      }
      clearTimeout(timer);
    }
    await this.#writer?.close();
    this.#settle(true); // what is still queued will not be kept: nobody waits for it
    this.#closed = true;
    this.#changes.notify();
  }

  /**
   * Durable events with `seq > after` already kept, then, for each part streaming at the
   * switch, its text so far as one delta, then every new event as it arrives (ephemeral ones
   * too). Ends when the log closes; aborting rejects with AbortError.
   */
  async *read(after = 0, signal?: AbortSignal): AsyncIterable<CanonicalEvent> {
    const what = "reading session events";
    // The switch: everything linked after `link` is live; everything numbered up to `upTo`
    // is read from what is kept. Until the store said its last seq, durable events wait (and
    // ephemeral ones do not): a durable one linked meanwhile is read from the store instead.
    let link = this.#last;
    if (this.#ready !== undefined) await this.#ready;
    // What streamed up to `caughtUp` goes out whole, after the kept events (the parts' starts
    // are among them, or the reader has them) and before the deltas linked after it. The
    // deltas linked between `link` and it are in it, or of a part whose end was kept: skipped.
    // A reader past what was handed out (it read a commit not handed out yet) is given none:
    // a part's end it has would come before them.
    const caughtUp = this.#last;
    const upTo = this.#seq;
    const whole = after <= upTo;
    const soFar = whole ? this.#streamed.catchUp() : [];
    // Which events this reader lacks. It buffers nothing: the links after `link` are its
    // buffer, held by the log while it has yet to pass them. A reader past what was handed out
    // is given every event handed out from now on (the log's seqs decide, not the reader's).
    // A hole in what is kept (the store lost events) is logged, and the read goes on.
    const seam = new ReplaySeam<CanonicalEvent>({
      after: Math.min(after, upTo),
      seqOf: (event) => (event.durable ? event.seq : undefined),
      bufferLimit: 0,
      signal,
      what,
      onGap: (gap) =>
        this.#logger.warn("the session's kept events have a hole", { ...this.#fields, ...gap }),
    });
    let seen = after;
    while (seen < upTo) {
      if (signal?.aborted) throw new AbortError(what);
      const page = await this.durableBetween(seen, upTo, this.#pageSize);
      if (page.length === 0) break;
      for (const event of page) {
        seen = event.seq ?? seen;
        if (seam.kept(event)) yield event;
      }
    }
    seam.goLive();
    yield* soFar;
    let inCatchUp = whole && link !== caughtUp;
    for (;;) {
      while (link.next !== undefined) {
        link = link.next;
        const event = link.event;
        const before = inCatchUp;
        if (link === caughtUp) inCatchUp = false;
        if (event === undefined || (before && isDelta(event))) continue;
        // A plain loop, not `yield*`: that wraps the array in an async iterator per event.
        for (const out of seam.arrived(event)) yield out;
      }
      if (this.#closed) return;
      await this.#changes.wait(signal, what);
    }
  }
}
