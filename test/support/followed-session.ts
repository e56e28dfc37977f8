/**
 * A session followed through a typed client's subscription, read in the background: the
 * events that came, and bounded waits on them (the sidecar client's and the relay's e2e tests).
 */
import type { BridgeClient, Subscription } from "../../src/client/index.js";
import type { CanonicalEvent, CanonicalEventOf } from "../../src/events/canonical.js";
import { within } from "./within.js";

/** A subscription read in the background: what came, and waits on it. */
export interface Followed {
  events: CanonicalEvent[];
  subscription: Subscription;
  /** The first event matching `match` (waits for it, bounded). */
  next<T extends CanonicalEvent["type"]>(
    type: T,
    match?: (event: CanonicalEventOf<T>) => boolean,
  ): Promise<CanonicalEventOf<T>>;
  /** The events of turn `turnId` up to its end (waits for it, bounded). */
  turn(turnId: string): Promise<CanonicalEvent[]>;
}

export function followSession(via: BridgeClient, sessionId: string, waitMs: number): Followed {
  const subscription = via.subscribe(sessionId);
  const events: CanonicalEvent[] = [];
  const waiters = new Set<() => void>();
  const reading = (async () => {
    for await (const event of subscription) {
      events.push(event);
      for (const waiter of [...waiters]) waiter();
    }
  })();
  reading.catch(() => {});
  const waitFor = <T>(what: string, find: () => T | undefined): Promise<T> =>
    within(
      new Promise<T>((resolve, reject) => {
        const check = (): void => {
          const found = find();
          if (found === undefined) return;
          waiters.delete(check);
          resolve(found);
        };
        waiters.add(check);
        reading.then(() => reject(new Error(`the subscription ended before ${what}`)), reject);
        check();
      }),
      `${what} (had ${events.map((event) => event.type).join(", ")})`,
      waitMs,
    );
  return {
    events,
    subscription,
    next<T extends CanonicalEvent["type"]>(
      type: T,
      match?: (event: CanonicalEventOf<T>) => boolean,
    ): Promise<CanonicalEventOf<T>> {
      const matches = (event: CanonicalEvent): boolean =>
        event.type === type && (match?.(event as unknown as CanonicalEventOf<T>) ?? true);
      return waitFor(type, () => events.find(matches) as CanonicalEventOf<T> | undefined);
    },
    turn(turnId) {
      return waitFor(`the end of turn ${turnId}`, () =>
        events.some((event) => event.type === "turn.ended" && event.turnId === turnId)
          ? events.filter((event) => event.turnId === turnId)
          : undefined,
      );
    },
  };
}
