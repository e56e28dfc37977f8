/**
 * The soak's store, opened with its page cache already full, as a long-lived bridge's is.
 *
 * Why. The SQLite store keeps up to 32 MiB of pages in memory (`cache_size`, sqlite-store.ts).
 * A fresh store's cache fills with every page its appends write, so a new bridge's RSS grows
 * with its store until the store passes 32 MiB: at the soak's pace (some 500 KiB of store a
 * minute) that takes an hour, and a 10-minute soak from an empty store measured that filling
 * (+0.5 to +1.4 MiB/min of RSS, the malloc heap growing page for page with the store) instead
 * of whether the bridge leaks. A bridge that has run for hours has a full cache, whose pages
 * the new ones replace. So, before the bridge starts, this connection writes older sessions'
 * events (more than the cache holds, so the cache ends full of them), and the bridge is
 * given this connection. The bar is unchanged; what it is measured from is the steady state.
 */
import { canonical } from "../../../src/events/build.js";
import type { CanonicalEvent } from "../../../src/events/canonical.js";
import { SqliteStore } from "../../../src/store/sqlite-store.js";

/**
 * Text written first: two events a page, some 10,000 pages (39 MiB), more than the 8,192 pages
 * (32 MiB) the cache holds; written in about a second.
 */
export const WARM_STORE_BYTES = 28 * 1024 * 1024;

const TEXT_BYTES = 1_500;
const EVENTS_PER_APPEND = 500;
const SESSIONS = 8;

/** Opens `path` (a new store) and fills it with `bytes` of older sessions' text, through the connection it returns. */
export async function warmStore(path: string, bytes = WARM_STORE_BYTES): Promise<SqliteStore> {
  const store = SqliteStore.open(path);
  const total = Math.ceil(bytes / TEXT_BYTES);
  const text = "x".repeat(TEXT_BYTES);
  for (let written = 0; written < total; written += EVENTS_PER_APPEND) {
    const sessionId = `ses_warm_${(written / EVENTS_PER_APPEND) % SESSIONS}`;
    const events: CanonicalEvent[] = [];
    for (let index = written; index < Math.min(total, written + EVENTS_PER_APPEND); index++) {
      const native = { backend: "serve" as const, type: "warm", id: `warm${index}` };
      const origin = { sessionId, turnId: `turn_warm_${index >> 4}`, at: index, native };
      events.push(
        canonical(origin, 0, "text.ended", { partId: `prt_${index}`, stepId: "s", text }),
      );
    }
    await store.append(sessionId, events);
  }
  return store;
}
