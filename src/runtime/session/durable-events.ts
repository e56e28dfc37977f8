/**
 * Where a session's durable events are kept and numbered: the transcript store when there is
 * one, else an array in memory. The event log keeps nothing older than what it hands out live,
 * so replays (`events({ after })`, `transcript()`, an ended turn's events) read from here.
 */
import { OpencodeBridgeError } from "../../errors.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import type { Store } from "../../store/store.js";
import { describeError } from "../../util/describe-error.js";

export type DurableEvents = StoreEvents | MemoryEvents;

/** Kept in the transcript store: every call waits for it. */
export interface StoreEvents {
  readonly kind: "store";
  /**
   * Keeps `events` (durable, in order) after the last kept one, with the upstream `cursor`
   * they were read up to, in one transaction. Resolves with them as kept (with `seq`), leaving
   * out any whose `id` is kept already. Rejects when they could not be kept; then none is.
   */
  append(events: readonly CanonicalEvent[], cursor: string | undefined): Promise<CanonicalEvent[]>;
  /** Kept events with `seq > after`, in `seq` order, at most `limit`. */
  read(after: number, limit: number): Promise<CanonicalEvent[]>;
  /** The last kept seq (0 before the first). */
  lastSeq(): Promise<number>;
}

/** Kept in memory: nothing to wait for, so the log hands events out as they come. */
export interface MemoryEvents {
  readonly kind: "memory";
  /** As `StoreEvents.append`, at once (memory does not fail). */
  append(events: readonly CanonicalEvent[]): CanonicalEvent[];
  read(after: number, limit: number): CanonicalEvent[];
  /** Events kept before this log existed (an adopted session's): kept as they are. */
  seed(events: readonly CanonicalEvent[]): void;
}

/** A session's events in the transcript store (which numbers them in its own transaction). */
export function storeEvents(store: Store, sessionId: string): StoreEvents {
  return {
    kind: "store",
    append: (events, cursor) => store.append(sessionId, events, cursor),
    lastSeq: () => store.lastSeq(sessionId),
    read: async (after, limit) => {
      try {
        return await store.read(sessionId, { after, limit });
      } catch (error) {
        throw new OpencodeBridgeError(
          `cannot read the kept events of session ${sessionId} (after seq ${after}) from the ` +
            `store: ${describeError(error)}. Replays read the store: keep it open while its ` +
            "sessions are read (a bridge closes the store it opened when it closes)",
          { cause: error },
        );
      }
    },
  };
}

/**
 * Durable events in memory, for a session without a store (and a subagent's child session):
 * only durable events are kept, so memory grows with the transcript, never with deltas.
 */
export function memoryEvents(): MemoryEvents {
  const kept: CanonicalEvent[] = [];
  const ids = new Set<string>();
  const keep = (event: CanonicalEvent): void => {
    kept.push(event);
    ids.add(event.id);
  };
  return {
    kind: "memory",
    append(events) {
      const stored: CanonicalEvent[] = [];
      for (const event of events) {
        if (!event.durable || ids.has(event.id)) continue;
        const numbered = { ...event, seq: (kept.at(-1)?.seq ?? 0) + 1 } as CanonicalEvent;
        keep(numbered);
        stored.push(numbered);
      }
      return stored;
    },
    read(after, limit) {
      // Seqs increase along the array: find the first one after `after` by bisection.
      let low = 0;
      let high = kept.length;
      while (low < high) {
        const middle = (low + high) >> 1;
        if ((kept[middle]?.seq ?? 0) <= after) low = middle + 1;
        else high = middle;
      }
      return kept.slice(low, low + limit);
    },
    seed(events) {
      for (const event of events) if (event.durable && !ids.has(event.id)) keep(event);
    },
  };
}
