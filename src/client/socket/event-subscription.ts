/**
 * One `client.subscribe(...)`: the AsyncIterable its caller reads. It keeps the events the
 * shared socket hands it until they are read, and the seq of the last durable one it took, so
 * that however often the socket reconnects it takes each durable event once, in order.
 *
 * A reader that falls far behind must not make the client hold a session's whole history:
 * past `bufferLimit` unread events the subscription detaches (takes nothing more, so ephemeral
 * events are lost, which they may be) and, once its reader has emptied the buffer, asks its
 * feed to bring the durable events after its last seq again. A durable event past the next seq
 * (a hole: the sidecar skipped some) is not taken either: the subscription asks its feed to
 * bring the events after its last seq again, as after a detach. Which durable event is new,
 * taken or past a hole is the shared `SeqCursor`'s call (util/replay-seam.ts).
 */
import type { CanonicalEvent } from "../../events/canonical.js";
import { SeqCursor } from "../../util/replay-seam.js";
import { BridgeAbortError } from "../errors.js";

export interface SubscriptionHooks {
  /** The subscription stopped taking events (detached) or wants them again (reattached). */
  changed(subscription: EventSubscription): void;
  /** Its reader is gone: forget it. */
  closed(subscription: EventSubscription): void;
}

/** What `client.subscribe()` returns: read it with `for await`. */
export interface Subscription extends AsyncIterable<CanonicalEvent> {
  readonly sessionId: string;
  /** Resolves with the seq it is caught up to once the kept events are read from the sidecar. */
  readonly caughtUp: Promise<number>;
  /**
   * The seq of the last durable event handed to the reader (its `after`, before any): keep it
   * to subscribe again later from where the reader is.
   */
  readonly lastSeq: number;
  /** Ephemeral events skipped for this reader (it fell behind, or the sidecar said so). */
  readonly dropped: number;
  /** Ends it, as breaking out of the loop does. */
  close(): void;
}

export class EventSubscription implements Subscription {
  readonly sessionId: string;
  readonly #bufferLimit: number;
  readonly #hooks: SubscriptionHooks;
  readonly #queue: CanonicalEvent[] = [];
  #head = 0;
  /** The last durable seq taken into the buffer: where the sidecar resumes for it. */
  readonly #taken: SeqCursor;
  /** The last durable seq handed to the reader. */
  #handedSeq: number;
  #detached = false;
  #finished: { error?: unknown } | undefined;
  #wake: (() => void) | undefined;
  #iterating = false;
  #dropped = 0;
  #caughtUpSeq: number | undefined;
  #onCaughtUp: ((seq: number) => void) | undefined;
  #failCaughtUp: ((error: unknown) => void) | undefined;
  #forgetSignal: (() => void) | undefined;
  /** Resolves with the seq the subscription was caught up to, the first time it is. */
  readonly caughtUp: Promise<number>;

  constructor(
    sessionId: string,
    after: number,
    options: { bufferLimit: number; signal?: AbortSignal | undefined },
    hooks: SubscriptionHooks,
  ) {
    this.sessionId = sessionId;
    this.#taken = new SeqCursor(after);
    this.#handedSeq = after;
    this.#bufferLimit = options.bufferLimit;
    this.#hooks = hooks;
    this.caughtUp = new Promise((resolve, reject) => {
      this.#onCaughtUp = resolve;
      this.#failCaughtUp = reject;
    });
    // Not every caller waits for it; a subscription that fails first must not leave it unhandled.
    this.caughtUp.catch(() => {});
    const signal = options.signal;
    if (signal !== undefined) {
      const onAbort = (): void =>
        this.fail(new BridgeAbortError("the subscription", { cause: signal.reason }));
      if (signal.aborted) onAbort();
      else {
        signal.addEventListener("abort", onAbort, { once: true });
        // A long-lived signal shared by many subscriptions must not keep every one of them.
        this.#forgetSignal = () => signal.removeEventListener("abort", onAbort);
      }
    }
  }

  get lastSeq(): number {
    return this.#handedSeq;
  }

  /**
   * The seq of the last durable event taken: the `after` a resume asks the sidecar for (the
   * events buffered past `lastSeq` are still handed out, so none is asked for twice).
   */
  get takenSeq(): number {
    return this.#taken.last;
  }

  /** Whether it takes events (false while detached, or once finished). */
  get taking(): boolean {
    return !this.#detached && this.#finished === undefined;
  }

  /** Ephemeral events skipped for this subscriber (told by the sidecar, or detached here). */
  get dropped(): number {
    return this.#dropped;
  }

  /** Takes `event` unless it is a durable one already taken. */
  offer(event: CanonicalEvent): void {
    if (!this.taking) {
      if (!event.durable) this.#dropped += 1;
      return;
    }
    if (event.durable && event.seq !== undefined) {
      const verdict = this.#taken.verdict(event.seq);
      if (verdict === "duplicate") return;
      if (verdict === "gap") {
        // The events in between are kept on the sidecar: its feed subscribes again from the
        // last seq taken (through its barrier), and what this subscription has stays in order.
        this.#hooks.changed(this);
        return;
      }
      this.#taken.take(event.seq);
    }
    this.#queue.push(event);
    if (this.#queue.length - this.#head > this.#bufferLimit) {
      this.#detached = true;
      this.#hooks.changed(this);
    }
    this.#wakeReader();
  }

  markCaughtUp(seq: number): void {
    if (this.#caughtUpSeq !== undefined || !this.taking) return;
    this.#caughtUpSeq = Math.max(seq, this.#taken.last);
    this.#onCaughtUp?.(this.#caughtUpSeq);
  }

  countDropped(count: number): void {
    if (this.taking) this.#dropped += count;
  }

  /** Ends the iteration with `error` once the buffered events are read (abort: at once). */
  fail(error: unknown): void {
    if (this.#finished !== undefined) return;
    this.#finished = { error };
    this.#forgetSignal?.();
    if (error instanceof BridgeAbortError) this.#queue.length = this.#head = 0;
    this.#rejectCaughtUp(error);
    this.#wakeReader();
    this.#hooks.closed(this);
  }

  close(): void {
    this.end();
  }

  /** Ends the iteration once the buffered events are read. */
  end(): void {
    if (this.#finished !== undefined) return;
    this.#finished = {};
    this.#forgetSignal?.();
    this.#rejectCaughtUp(new BridgeAbortError("the subscription"));
    this.#wakeReader();
    this.#hooks.closed(this);
  }

  [Symbol.asyncIterator](): AsyncIterator<CanonicalEvent> {
    if (this.#iterating) {
      throw new TypeError(
        `the subscription to session ${this.sessionId} is being read already: subscribe again for a second reader`,
      );
    }
    this.#iterating = true;
    return {
      next: () => this.#next(),
      return: async () => {
        this.end();
        this.#queue.length = this.#head = 0;
        return { done: true, value: undefined };
      },
    };
  }

  async #next(): Promise<IteratorResult<CanonicalEvent>> {
    for (;;) {
      if (this.#head < this.#queue.length) {
        const event = this.#queue[this.#head] as CanonicalEvent;
        this.#head += 1;
        if (event.durable && event.seq !== undefined) this.#handedSeq = event.seq;
        this.#compact();
        return { done: false, value: event };
      }
      if (this.#finished !== undefined) {
        if (this.#finished.error !== undefined) {
          const error = this.#finished.error;
          this.#finished = {};
          throw error;
        }
        return { done: true, value: undefined };
      }
      if (this.#detached) {
        // Read to the end of what it kept: take events again from its last seq.
        this.#detached = false;
        this.#hooks.changed(this);
        continue;
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  #compact(): void {
    // Drop read events now and then, not on each read (shift is O(n)).
    if (this.#head === this.#queue.length) {
      this.#queue.length = 0;
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
  }

  #wakeReader(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #rejectCaughtUp(error: unknown): void {
    if (this.#caughtUpSeq !== undefined) return;
    this.#caughtUpSeq = -1;
    // Callers awaiting caughtUp learn why it never came.
    this.#failCaughtUp?.(error);
  }
}
