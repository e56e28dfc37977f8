/** The checks every store makes of what it is given, the same on SQLite and on Postgres. */
import { UsageError } from "../errors.js";
import type { CanonicalEvent } from "../events/canonical.js";
import type { ReadOptions, SessionRecord } from "./store.js";

/** The durable events of `events`; one of another session is a `UsageError`. */
export function durableEventsFor(
  sessionId: string,
  events: readonly CanonicalEvent[],
): CanonicalEvent[] {
  const durable = events.filter((event) => event.durable);
  for (const event of durable) {
    if (event.sessionId !== sessionId) {
      throw new UsageError(
        `event ${event.id} belongs to session ${event.sessionId}, not ${sessionId}: append ` +
          "each session's events under its own id",
      );
    }
  }
  return durable;
}

/** `after` (default 0) and `limit` (undefined: all) of a read, checked. */
export function readBounds(options: ReadOptions): { after: number; limit: number | undefined } {
  const after = options.after ?? 0;
  const limit = options.limit;
  if (!Number.isSafeInteger(after) || after < 0) {
    throw new UsageError(`read: after must be a seq (an integer >= 0), not ${after}`);
  }
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
    throw new UsageError(`read: limit must be an integer >= 0, not ${limit}`);
  }
  return { after, limit };
}

/** A record's times must be whole milliseconds (both stores keep them as integers). */
export function checkTimestamps(record: SessionRecord): void {
  for (const field of ["createdAt", "updatedAt"] as const) {
    if (!Number.isSafeInteger(record[field])) {
      throw new UsageError(`session ${record.id}: ${field} must be whole milliseconds`);
    }
  }
}
