/** The step parts both `serve` surfaces send: parts in, canonical events and state out. */
import { describe, expect, it } from "vitest";
import { parseApiEvent } from "../opencode-protocol/api/events.js";
import { parseV2Event } from "../opencode-protocol/v2/events.js";
import type { Origin } from "./build.js";
import { initialApiState, normalizeApiEvent } from "./normalize-api.js";
import { initialV2State, normalizeV2Event } from "./normalize-v2.js";
import { normalizeStepPart, type StepPart } from "./step-parts.js";
import { initialTurnState, startTurn, type TurnState } from "./turn-state.js";

const origin: Origin = {
  sessionId: "ses_1",
  turnId: "turn_msg_1",
  at: 7,
  native: { backend: "serve", type: "native.type", id: "evt_1", seq: 3 },
};
const running = startTurn(initialTurnState, "msg_1");

/** The one event a part gives, without its envelope (every event carries `origin`). */
function typeAndData(part: StepPart, state: TurnState = running) {
  const { events } = normalizeStepPart(state, origin, part);
  expect(events).toHaveLength(1);
  return { type: events[0]?.type, data: events[0]?.data };
}

describe("normalizeStepPart", () => {
  it("makes one event with the native event's origin and a stable id", () => {
    const { events } = normalizeStepPart(running, origin, {
      type: "text.delta",
      stepId: "msg_a",
      localId: "text-0",
      delta: "he",
    });
    expect(events).toEqual([
      {
        id: "evt_1#0",
        sessionId: "ses_1",
        turnId: "turn_msg_1",
        at: 7,
        type: "text.delta",
        data: { partId: "msg_a/text-0", delta: "he" },
        durable: false,
        native: origin.native,
      },
    ]);
  });

  it("starts a step with the canonical model ref", () => {
    expect(
      typeAndData({
        type: "step.started",
        stepId: "msg_a",
        agent: "build",
        model: { id: "gpt-5", providerID: "openai", variant: "high" },
      }),
    ).toEqual({
      type: "step.started",
      data: { stepId: "msg_a", model: { providerID: "openai", modelID: "gpt-5" }, agent: "build" },
    });
  });

  it("scopes text and reasoning part ids by their step, whether a string id or an ordinal", () => {
    expect(typeAndData({ type: "text.started", stepId: "msg_a", localId: 0 })).toEqual({
      type: "text.started",
      data: { partId: "msg_a/0", stepId: "msg_a" },
    });
    expect(typeAndData({ type: "reasoning.started", stepId: "msg_a", localId: "r-1" })).toEqual({
      type: "reasoning.started",
      data: { partId: "msg_a/r-1", stepId: "msg_a" },
    });
    expect(
      typeAndData({ type: "reasoning.delta", stepId: "msg_a", localId: "r-1", delta: "hm" }),
    ).toEqual({ type: "reasoning.delta", data: { partId: "msg_a/r-1", delta: "hm" } });
    expect(
      typeAndData({ type: "reasoning.ended", stepId: "msg_a", localId: "r-1", text: "hmm" }),
    ).toEqual({
      type: "reasoning.ended",
      data: { partId: "msg_a/r-1", stepId: "msg_a", text: "hmm" },
    });
  });

  it("maps a tool call's input stream", () => {
    expect(
      typeAndData({ type: "tool.input.started", stepId: "msg_a", callId: "call_1", tool: "bash" }),
    ).toEqual({
      type: "tool.input.started",
      data: { callId: "call_1", tool: "bash", stepId: "msg_a" },
    });
    expect(typeAndData({ type: "tool.input.delta", callId: "call_1", delta: '{"c' })).toEqual({
      type: "tool.input.delta",
      data: { callId: "call_1", delta: '{"c' },
    });
    expect(typeAndData({ type: "tool.input.ended", callId: "call_1", input: "{}" })).toEqual({
      type: "tool.input.ended",
      data: { callId: "call_1", input: "{}" },
    });
  });

  it("records a text's end as the turn's final text; a later step's text replaces it", () => {
    const ended = (state: TurnState, stepId: string, text: string) =>
      normalizeStepPart(state, origin, { type: "text.ended", stepId, localId: 0, text }).state;
    const first = ended(ended(running, "msg_a", "one "), "msg_a", "two");
    expect(first.turn?.finalText.join("")).toBe("one two");
    expect(ended(first, "msg_b", "three").turn?.finalText).toEqual(["three"]);
  });

  it("leaves the state alone for every other part, and when no turn runs", () => {
    const reasoning = normalizeStepPart(running, origin, {
      type: "reasoning.ended",
      stepId: "msg_a",
      localId: "r-0",
      text: "hmm",
    });
    expect(reasoning.state).toBe(running);
    const idle = normalizeStepPart(initialTurnState, origin, {
      type: "text.ended",
      stepId: "msg_a",
      localId: 0,
      text: "x",
    });
    expect(idle.state).toEqual(initialTurnState);
  });
});

describe("the same part from 1.18's /api and 2.0", () => {
  it("gives the same canonical data under either surface's field names", () => {
    const step = { sessionID: "ses_1", assistantMessageID: "msg_a" };
    const api = normalizeApiEvent(
      initialApiState("ses_1"),
      parseApiEvent({
        id: "evt_api",
        type: "session.next.tool.input.started",
        data: { ...step, timestamp: 1, callID: "call_1", name: "bash" },
      }),
    );
    const v2 = normalizeV2Event(
      initialV2State("ses_1"),
      parseV2Event({
        id: "evt_v2",
        type: "session.tool.input.started",
        data: { ...step, id: "call_1", name: "bash" },
      }),
    );
    expect(api.events.map((event) => event.data)).toEqual(v2.events.map((event) => event.data));
    expect(v2.events[0]?.data).toEqual({ callId: "call_1", tool: "bash", stepId: "msg_a" });
  });
});
