/**
 * The soak's check of the store after the close: each session's durable events numbered
 * 1..n without a gap (a gap is a lost event), and no event id stored twice.
 */
import type { Store } from "../../../src/store/store.js";

export interface StoreCheck {
  durableLost: number;
  duplicated: number;
  durableEvents: number;
}

export async function storeCheck(store: Store, sessionIds: readonly string[]): Promise<StoreCheck> {
  const check: StoreCheck = { durableLost: 0, duplicated: 0, durableEvents: 0 };
  for (const id of sessionIds) {
    const events = await store.read(id);
    const ids = new Set<string>();
    let expected = 1;
    for (const event of events) {
      const seq = event.seq ?? 0;
      if (seq > expected) check.durableLost += seq - expected;
      expected = seq + 1;
      if (ids.has(event.id)) check.duplicated++;
      ids.add(event.id);
    }
    check.durableEvents += events.length;
  }
  return check;
}
