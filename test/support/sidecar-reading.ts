/** Reading a `BridgeClient` subscription in an end-to-end test: until an event, bounded. */

import type { BridgeClient } from "../../src/client/index.js";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import { within } from "./within.js";

/**
 * The events of `sessionId` (from `after`, default 0) up to and including the first that
 * `last` picks; the subscription ends then. `ms` bounds the wait (a safety net).
 */
export async function readUntil(
  client: BridgeClient,
  sessionId: string,
  last: (event: CanonicalEvent) => boolean,
  options: { after?: number; ms?: number; what?: string } = {},
): Promise<CanonicalEvent[]> {
  const stop = new AbortController();
  const seen: CanonicalEvent[] = [];
  const reading = (async () => {
    for await (const event of client.subscribe(sessionId, {
      after: options.after ?? 0,
      signal: stop.signal,
    })) {
      seen.push(event);
      if (last(event)) return seen;
    }
    return seen;
  })();
  try {
    return await within(
      reading,
      `${options.what ?? `an event of ${sessionId}`} (had ${seen.map((event) => event.type).join(", ")})`,
      options.ms ?? 60_000,
    );
  } finally {
    stop.abort();
    reading.catch(() => {});
  }
}
