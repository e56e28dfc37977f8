/**
 * The events the store benches ((p), (k)) append: finished text parts of about 230 characters,
 * the size a chat's durable events mostly are.
 */
import { canonical } from "../src/events/build.js";
import type { CanonicalEvent } from "../src/events/canonical.js";

const TEXT = "I'll look at the login handler first, then run the tests to see what fails. ";

/** `count` text events of `sessionId`, ids `e<from>`, `e<from + 1>`, … */
export function textEvents(sessionId: string, from: number, count: number): CanonicalEvent[] {
  return Array.from({ length: count }, (_, offset) => {
    const id = `e${from + offset}`;
    const native = { backend: "replay" as const, type: "bench", id };
    const origin = { sessionId, turnId: "turn_1", at: 1_800_000_000_000, native };
    const event = canonical(origin, 0, "text.ended", { partId: id, text: TEXT.repeat(3) });
    return { ...event, id };
  });
}
