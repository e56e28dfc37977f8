/**
 * What the bridge should have stored, from the server itself: the session's native durable
 * log read straight from `opencode serve` (not through the proxy), put through the same
 * normaliser the serve backend uses. Each canonical durable event it makes is named by its
 * native seq and type, the names the bridge's transcript must hold exactly once each.
 */

import { AbortError } from "../../../src/errors.js";
import type { CanonicalEvent } from "../../../src/events/canonical.js";
import { initialApiState, normalizeApiEvent } from "../../../src/events/normalize-api.js";
import { normalizeSafely } from "../../../src/events/safe-normalize.js";
import type { OpencodeClient } from "../../../src/opencode-client/opencode-client.js";
import { apiEventDurableSeq } from "../../../src/opencode-protocol/api/events.js";
import { anySignalWithTimeout } from "../../../src/util/timeout-signal.js";

/** The log is read whole once nothing more came for this long. */
const QUIET_MS = 1_500;
/** Bound on the whole read. */
const READ_BOUND_MS = 30_000;

/** A durable canonical event's name across runs: its native seq and its type. */
export function durableKey(event: CanonicalEvent): string | undefined {
  const seq = event.native?.seq;
  return event.durable && seq !== undefined ? `${seq} ${event.type}` : undefined;
}

/** The names of the durable events the session's native log normalises to, in order. */
export async function expectedDurableKeys(
  client: OpencodeClient,
  sessionId: string,
  directory: string,
): Promise<{ keys: string[]; nativeEvents: number; lastSeq: number }> {
  const stop = new AbortController();
  const signal = anySignalWithTimeout([stop.signal], READ_BOUND_MS);
  let quiet = setTimeout(() => stop.abort(), QUIET_MS);
  let state = initialApiState(sessionId);
  const keys: string[] = [];
  let nativeEvents = 0;
  let lastSeq = 0;
  try {
    const events = client.v2.session.events(
      { sessionID: sessionId, after: 0 },
      { signal, directory },
    );
    for await (const parsed of events) {
      clearTimeout(quiet);
      quiet = setTimeout(() => stop.abort(), QUIET_MS);
      const seq = apiEventDurableSeq(parsed.event);
      if (seq === undefined) continue;
      nativeEvents += 1;
      lastSeq = seq;
      const result = normalizeSafely(normalizeApiEvent, state, parsed, { backend: "serve" });
      state = result.state;
      for (const event of result.events) {
        const key = durableKey(event);
        if (key !== undefined) keys.push(key);
      }
    }
  } catch (error) {
    const timedOut = signal.aborted && !stop.signal.aborted;
    if (timedOut) throw new Error(`reading the native log took over ${READ_BOUND_MS} ms`);
    if (!(error instanceof AbortError) && !stop.signal.aborted) throw error;
  } finally {
    clearTimeout(quiet);
  }
  return { keys, nativeEvents, lastSeq };
}
