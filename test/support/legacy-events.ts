/** Recorded legacy (`/event`) frames normalised to canonical events, as the serve-legacy backend does. */
import type { CanonicalEvent } from "../../src/events/canonical.js";
import { initialLegacyState, normalizeLegacyEvent } from "../../src/events/normalize-legacy.js";
import {
  legacyEventSessionId,
  parseLegacyEvent,
} from "../../src/opencode-protocol/legacy/events.js";

/** Normalises the events of the first session that appears in `frames`. */
export function normalizeLegacyFrames(frames: unknown[]): CanonicalEvent[] {
  const parsed = frames.map(parseLegacyEvent);
  const sessionId = parsed
    .map((item) => legacyEventSessionId(item.event))
    .find((id): id is string => id !== undefined);
  let state = initialLegacyState(sessionId ?? "none");
  const out: CanonicalEvent[] = [];
  for (const item of parsed) {
    if (legacyEventSessionId(item.event) !== sessionId) continue;
    const result = normalizeLegacyEvent(state, item);
    state = result.state;
    out.push(...result.events);
  }
  return out;
}
