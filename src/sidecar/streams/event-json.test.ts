import { describe, expect, it } from "vitest";
import { canonicalEvent } from "../../../test/support/canonical-event.js";
import { EventMessageSchema } from "../../wire/ws.js";
import { eventJson, eventMessageJson } from "./event-json.js";

describe("eventMessageJson", () => {
  it("is the event message as JSON.stringify would write it, and valid by its schema", () => {
    const event = canonicalEvent("turn_1", "text.delta", { partId: "p", delta: 'a "quoted" ✓' });
    const json = eventMessageJson('ses_"odd"', event);
    expect(JSON.parse(json)).toEqual({ type: "event", sessionId: 'ses_"odd"', event });
    expect(EventMessageSchema.safeParse(JSON.parse(json)).success).toBe(true);
    expect(eventJson(event)).toBe(JSON.stringify(event));
  });
});
