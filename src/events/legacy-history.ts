/**
 * A legacy OpenCode session's messages (`GET /session/{id}/message`: what `opencode run` and the
 * TUI leave) as canonical events, for an import. OpenCode 1.18.33 keeps no `/api` event log of
 * such a session, so its history is only in its messages. They are told to the legacy
 * normaliser as the `/event` frames that made them (each message, then its parts whole, and the
 * idle that ended each exchange), so that one implementation says what a part means; the
 * frames' ids derive from the message and part ids, so the same history gives the same events.
 */

import { parseLegacyEvent } from "../opencode-protocol/legacy/events.js";
import type { MessageWithParts } from "../opencode-protocol/legacy/session.js";
import type { CanonicalEvent } from "./canonical.js";
import { initialLegacyState, normalizeLegacyEvent } from "./normalize-legacy.js";

/** The frame ids of an import start so, telling them from a live stream's. */
const FRAME_PREFIX = "import";

/**
 * The canonical events of session `sessionId` whose OpenCode messages are `messages` (oldest
 * first): per exchange `input.admitted` (the user message's id is its input id), `turn.started`,
 * the steps with their texts and tools, and `turn.ended` (`failed` or `interrupted` where the
 * last reply says so). An exchange still running when read ends there, as a reply cut short.
 */
export function legacyHistory(
  sessionId: string,
  messages: readonly MessageWithParts[],
): CanonicalEvent[] {
  let state = initialLegacyState(sessionId);
  const events: CanonicalEvent[] = [];
  const tell = (id: string, type: string, time: number, properties: object): void => {
    const frame = { id: `${FRAME_PREFIX}:${id}`, type, properties: { ...properties, time } };
    const result = normalizeLegacyEvent(state, parseLegacyEvent(frame));
    state = result.state;
    events.push(...result.events);
  };
  let lastTime = 0;
  const endExchange = (userId: string): void => {
    if (state.turn !== undefined)
      tell(`idle:${userId}`, "session.idle", lastTime, { sessionID: sessionId });
  };
  let exchange: string | undefined;
  for (const { info, parts } of messages) {
    const time =
      info.role === "assistant" ? (info.time.completed ?? info.time.created) : info.time.created;
    if (info.role === "user") {
      if (exchange !== undefined) endExchange(exchange);
      exchange = info.id;
    }
    lastTime = Math.max(lastTime, time);
    tell(info.id, "message.updated", info.time.created, { sessionID: sessionId, info });
    for (const parsed of parts) {
      // A part of a type the schema does not know is told as OpenCode sent it.
      const part = parsed.type === "unknown" ? parsed.raw : parsed;
      tell(part.id, "message.part.updated", info.time.created, { sessionID: sessionId, part });
    }
    // An abort or a provider error ends the exchange as the live stream's error frame did.
    if (info.role === "assistant" && info.error !== undefined) {
      tell(`error:${info.id}`, "session.error", time, { sessionID: sessionId, error: info.error });
    }
  }
  if (exchange !== undefined) endExchange(exchange);
  return events;
}
