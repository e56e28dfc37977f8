import { describe, expect, it } from "vitest";
import { parseApiEvent } from "./api/events.js";
import { PromptRequest as ApiPromptRequest } from "./api/session.js";
import { parseLegacyEvent } from "./legacy/events.js";
import { Part } from "./legacy/parts.js";
import { PromptRequest as LegacyPromptRequest } from "./legacy/session.js";

describe("server output is parsed leniently", () => {
  it("passes an unknown event type through untouched", () => {
    const frame = { id: "evt_1", type: "plugin.added", properties: { name: "x" } };
    expect(parseLegacyEvent(frame)).toEqual({ known: false, event: frame });
  });

  it("keeps unknown fields of a known event", () => {
    const parsed = parseApiEvent({
      id: "evt_1",
      type: "session.next.text.delta",
      data: {
        timestamp: 1,
        sessionID: "ses_1",
        assistantMessageID: "msg_1",
        textID: "t",
        delta: "hi",
        brandNew: 42,
      },
    });
    expect(parsed.known).toBe(true);
    expect(parsed.event).toMatchObject({ data: { brandNew: 42, delta: "hi" } });
  });

  it("passes a known type that lost a required field through, with the issues", () => {
    const parsed = parseApiEvent({
      id: "evt_1",
      type: "session.next.text.ended",
      data: { timestamp: 1, sessionID: "ses_1", assistantMessageID: "msg_1", textID: "t" },
    });
    expect(parsed.known).toBe(false);
    expect(parsed.known ? [] : parsed.issues?.map((issue) => issue.path.join("."))).toEqual([
      "data.text",
    ]);
  });

  it("rejects a frame without a type", () => {
    expect(() => parseLegacyEvent({ properties: {} })).toThrow(/type/);
  });
});

describe("requests are validated strictly", () => {
  it("requires an explicit delivery on /api prompts", () => {
    expect(ApiPromptRequest.safeParse({ prompt: { text: "hi" } }).success).toBe(false);
    expect(ApiPromptRequest.safeParse({ prompt: { text: "hi" }, delivery: "queue" }).success).toBe(
      true,
    );
  });

  it("rejects unknown fields instead of sending them", () => {
    const result = LegacyPromptRequest.safeParse({
      parts: [{ type: "text", text: "hi" }],
      modle: { providerID: "demo", modelID: "demo-1" },
    });
    expect(result.success).toBe(false);
  });
});

describe("legacy parts", () => {
  it("keeps a part of an unknown type whole, marked unknown", () => {
    const raw = { id: "prt_1", sessionID: "ses_1", messageID: "msg_1", type: "hologram", x: 1 };
    expect(Part.parse(raw)).toEqual({ type: "unknown", nativeType: "hologram", raw });
  });

  it("rejects a known part type that lost a required field", () => {
    const broken = { id: "prt_1", sessionID: "ses_1", messageID: "msg_1", type: "text" };
    expect(Part.safeParse(broken).success).toBe(false);
  });
});
