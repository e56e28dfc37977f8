import type { AssistantMessage } from "opencode-bridge/client";
import { describe, expect, it } from "vitest";
import { conversationOf } from "../../../src/wire/conversation.js";
import { NumberedEvents } from "../../../test/support/numbered-events.js";
import { neverRan, turnsWithInput } from "./never-ran.js";

/** The conversation's assistant messages, and which the chat leaves out. */
function shown(events: NumberedEvents, reasons: Record<string, string> = {}) {
  const { messages } = conversationOf(events.events);
  const withInput = turnsWithInput(messages);
  const assistants = messages.filter((m): m is AssistantMessage => m.role === "assistant");
  return Object.fromEntries(
    assistants.map((m) => [m.turnId, !neverRan(m, reasons[m.turnId], withInput)]),
  );
}

describe("neverRan", () => {
  it("leaves out the turn of a steer delivered into another turn, and keeps that turn", () => {
    // OpenCode 1.18.33 delivered a steer with the queued input starting: its turn never ran.
    const events = new NumberedEvents("ses_1")
      .add("input.admitted", { inputId: "in_q", text: "queued", delivery: "queue" }, "turn_q")
      .add("input.admitted", { inputId: "in_s", text: "steer", delivery: "steer" }, "turn_s")
      .add("turn.started", { inputId: "in_q" }, "turn_q")
      .add("input.delivered", { inputId: "in_s" }, "turn_q")
      .add("text.started", { partId: "p1" }, "turn_q")
      .add("text.ended", { partId: "p1", text: "both" }, "turn_q")
      .add("turn.ended", { outcome: "completed", text: "both" }, "turn_q")
      .add("turn.ended", { outcome: "completed", text: "both" }, "turn_s");
    expect(shown(events)).toEqual({ turn_q: true, turn_s: false });
  });

  it("leaves out a turn taken back from the queue; keeps an empty turn that failed, and one running", () => {
    const events = new NumberedEvents("ses_1")
      .add("input.admitted", { inputId: "in_c", text: "never", delivery: "queue" }, "turn_c")
      .add("input.cancelled", { inputId: "in_c", reason: "removed" }, "turn_c")
      .add("turn.ended", { outcome: "interrupted", reason: "cancelled", text: "" }, "turn_c")
      .add("input.admitted", { inputId: "in_f", text: "fails", delivery: "queue" }, "turn_f")
      .add("turn.started", { inputId: "in_f" }, "turn_f")
      .add(
        "turn.ended",
        { outcome: "failed", text: "", error: { kind: "provider", message: "401" } },
        "turn_f",
      )
      .add("input.admitted", { inputId: "in_r", text: "runs", delivery: "queue" }, "turn_r")
      .add("turn.started", { inputId: "in_r" }, "turn_r");
    expect(shown(events, { turn_c: "cancelled" })).toEqual({
      turn_c: false,
      turn_f: true,
      turn_r: true,
    });
  });
});
