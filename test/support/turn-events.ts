/** Reading a runtime Turn's events in tests. */
import type { CanonicalEvent } from "../../src/events/canonical.js";
import type { Turn } from "../../src/runtime/session/turn.js";

/** Every event of the turn, up to and including its `turn.ended`. */
export async function collectTurn(turn: Turn): Promise<CanonicalEvent[]> {
  const events: CanonicalEvent[] = [];
  for await (const event of turn.events()) events.push(event);
  return events;
}

/** Reads the turn's events until `predicate` holds (the turn goes on). */
export async function untilTurnEvent(
  turn: Turn,
  predicate: (event: CanonicalEvent) => boolean,
): Promise<void> {
  for await (const event of turn.events()) if (predicate(event)) return;
  throw new Error("the turn ended before the awaited event");
}
