import { describe, expect, it } from "vitest";
import { canonicalEvent } from "../../../test/support/canonical-event.js";
import { childSessionIds, sessionContextOf, turnInputIds } from "./session-context.js";

const usage = (input: number, output: number, cost = 0) => ({
  tokens: { input, output, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
  cost,
});
const DEMO = { providerID: "demo", modelID: "demo-1" };

const EVENTS = [
  canonicalEvent("turn_1", "turn.started", { inputId: "msg_1" }),
  canonicalEvent("turn_1", "input.delivered", { inputId: "msg_1" }),
  canonicalEvent("turn_1", "step.started", { stepId: "s1", model: DEMO }),
  canonicalEvent("turn_1", "subagent.started", { callId: "c1", childSessionId: "ses_child" }),
  canonicalEvent("turn_1", "step.ended", {
    stepId: "s1",
    finish: "tool-calls",
    usage: usage(10, 2, 1),
  }),
  canonicalEvent("turn_1", "input.delivered", { inputId: "msg_2" }),
  canonicalEvent("turn_1", "step.ended", { stepId: "s2", finish: "stop", usage: usage(20, 3) }),
  canonicalEvent("turn_1", "turn.ended", { outcome: "completed" }),
  canonicalEvent("turn_2", "turn.started", { inputId: "msg_3" }),
  canonicalEvent("turn_2", "step.started", { stepId: "s3", model: DEMO }),
  canonicalEvent("turn_2", "step.ended", { stepId: "s3", finish: "stop", usage: usage(40, 4) }),
];
const CHILD = [
  canonicalEvent("turn_c", "step.ended", { stepId: "c", finish: "stop", usage: usage(5, 1, 2) }),
];

describe("sessionContextOf", () => {
  it("sums the session's steps, its children's apart, the latest turn's, and the latest step's context", () => {
    const context = sessionContextOf(EVENTS, new Map([["ses_child", CHILD]]), { limit: 1000 });
    expect(context).toEqual({
      spent: usage(70, 9, 1),
      children: [{ sessionId: "ses_child", spent: usage(5, 1, 2) }],
      total: usage(75, 10, 3),
      turn: { turnId: "turn_2", spent: usage(40, 4), running: true },
      context: { tokens: 44, model: DEMO, limit: 1000 },
    });
  });

  it("gives the turn asked for, and nothing spent before any step", () => {
    expect(sessionContextOf(EVENTS, new Map(), { turnId: "turn_1" }).turn).toEqual({
      turnId: "turn_1",
      spent: usage(30, 5, 1),
      running: false,
    });
    expect(sessionContextOf([], new Map())).toEqual({ children: [] });
  });
});

describe("the turn's inputs and the children", () => {
  it("names the inputs delivered into a turn and the child sessions its subagents ran", () => {
    expect(turnInputIds(EVENTS, "turn_1")).toEqual(["msg_1", "msg_2"]);
    expect(turnInputIds(EVENTS, "turn_9")).toEqual([]);
    expect(childSessionIds(EVENTS)).toEqual(["ses_child"]);
  });
});
