/**
 * What the store says at the end of the sidecar-clients scenario: each session's durable list
 * (what every client must have), how many times each turn ended, and whether every admitted
 * send's turn has ended.
 */
import type { CanonicalEvent } from "../../../src/events/canonical.js";
import type { Store } from "../../../src/store/store.js";
import type { AdmittedSend } from "./sends.js";
import type { DurableMark } from "./session-copy.js";

export interface StoreView {
  lists: Map<string, DurableMark[]>;
  /** `turn.ended` events per turn id (turns started or admitted without an end count 0). */
  endsPerTurn: Map<string, number>;
}

function mark(event: CanonicalEvent): DurableMark {
  return {
    id: event.id,
    seq: event.seq ?? -1,
    type: event.type,
    ...(event.turnId === undefined ? {} : { turnId: event.turnId }),
  };
}

/**
 * The store's view of `sessionIds`. Given the `previous` view, only the events after each of
 * its lists' last seq are read (the settle wait polls with it: reading every session whole four
 * times a second took CPU from the turns it waited for); without, everything is read.
 */
export async function readStore(
  store: Store,
  sessionIds: readonly string[],
  admitted: readonly AdmittedSend[],
  previous?: StoreView,
): Promise<StoreView> {
  const lists = new Map<string, DurableMark[]>();
  for (const sessionId of sessionIds) {
    const known = previous?.lists.get(sessionId) ?? [];
    const after = known.at(-1)?.seq ?? 0;
    const events = await store.read(sessionId, { after });
    lists.set(sessionId, [...known, ...events.map(mark)]);
  }
  const endsPerTurn = new Map<string, number>();
  for (const send of admitted) endsPerTurn.set(send.turnId, 0);
  for (const list of lists.values()) {
    for (const event of list) {
      if (event.turnId === undefined) continue;
      if (event.type === "turn.started" && !endsPerTurn.has(event.turnId)) {
        endsPerTurn.set(event.turnId, 0);
      }
      if (event.type === "turn.ended") {
        endsPerTurn.set(event.turnId, (endsPerTurn.get(event.turnId) ?? 0) + 1);
      }
    }
  }
  return { lists, endsPerTurn };
}

/** Whether every admitted send's turn has ended (in the store). */
export function allEnded(view: StoreView, admitted: readonly AdmittedSend[]): boolean {
  return admitted.every((send) => (view.endsPerTurn.get(send.turnId) ?? 0) > 0);
}
