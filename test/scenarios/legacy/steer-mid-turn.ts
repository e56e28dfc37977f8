/**
 * A second prompt sent into a busy session while the first answer streams. OpenCode 1.18's
 * legacy loop lets the running step finish, then answers the new user message in a further
 * step of the same busy period: one `session.idle` at the very end.
 */
import { expect } from "vitest";
import { scenario } from "../scenario.js";
import { clientFor, isLegacy, openLegacyEvents } from "../turns.js";
import {
  assistantTexts,
  eventsOf,
  finishedAssistant,
  indexOfTextPart,
  promptText,
  rolesOf,
  streamedTexts,
} from "./events.js";

/**
 * Tokens far apart, so that the second prompt lands between the first token and the second
 * one every run: with tokens 50 ms apart, where its events fall among the deltas is a race.
 */
const FIRST = "[[slow 3 1500]]";
const STEER = "[[reply steered]]";
const TOKENS = "tok1 tok2 tok3";

export const legacySteerMidTurn = scenario({
  name: "legacy-steer-mid-turn",
  surface: "legacy",
  description: "prompt_async into a busy session while the first answer streams",
  async run(context) {
    const client = clientFor(context);
    const stream = await openLegacyEvents(client);
    try {
      const session = await client.session.create({ title: "steer mid turn" });
      await promptText(client, session.id, FIRST);
      await stream.until((item) => isLegacy(item, "message.part.delta", session.id));
      await promptText(client, session.id, STEER);
      // Done once the steered message has its answer and the session is idle again.
      let steeredUser: string | undefined;
      let answered = false;
      await stream.until((item) => {
        if (item.known && item.event.type === "message.part.updated") {
          const { part } = item.event.properties;
          if (part.type === "text" && part.text === STEER) steeredUser = part.messageID;
        }
        if (finishedAssistant(item, session.id)?.parentID === steeredUser) answered = true;
        return answered && isLegacy(item, "session.idle", session.id);
      });
      const events = stream.of(session.id);
      await stream.close();
      const messages = await client.session.messages({ sessionID: session.id });
      return { sessionID: session.id, events, messages };
    } finally {
      await stream.close();
    }
  },
  check({ sessionID, events, messages }) {
    expect(rolesOf(messages)).toEqual(["user", "assistant", "user", "assistant"]);
    const [firstUser, firstAnswer, steerUser, steerAnswer] = messages;
    expect(firstUser?.parts.map((part) => part.type === "text" && part.text)).toEqual([FIRST]);
    expect(steerUser?.parts.map((part) => part.type === "text" && part.text)).toEqual([STEER]);
    // Each answer belongs to its own user message; the first was not cut short.
    expect(firstAnswer?.info.role === "assistant" && firstAnswer.info.parentID).toBe(
      firstUser?.info.id,
    );
    expect(steerAnswer?.info.role === "assistant" && steerAnswer.info.parentID).toBe(
      steerUser?.info.id,
    );
    expect(assistantTexts(messages)).toEqual([TOKENS, "steered"]);
    expect(streamedTexts(events, sessionID)).toEqual([TOKENS, "steered"]);
    // The steered message arrived between the first two tokens of the first answer.
    const deltas = events.flatMap((item, index) =>
      item.event.type === "message.part.delta" ? [index] : [],
    );
    const steeredAt = indexOfTextPart(events, STEER);
    expect(steeredAt).toBeGreaterThan(deltas[0] ?? Number.POSITIVE_INFINITY);
    expect(steeredAt).toBeLessThan(deltas[1] ?? -1);
    // Both prompts were handled in one busy period.
    expect(eventsOf(events, "session.idle")).toHaveLength(1);
  },
});
