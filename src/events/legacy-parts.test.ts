/** Legacy part snapshots as transitions: snapshots in, canonical events and state out. */
import { describe, expect, it } from "vitest";
import type { Part } from "../opencode-protocol/legacy/parts.js";
import { emitterInto, type Origin } from "./build.js";
import type { CanonicalEvent } from "./canonical.js";
import { type PartsState, textPartSnapshot, toolPartSnapshot } from "./legacy-parts.js";
import { initialTurnState, startTurn } from "./turn-state.js";

const origin: Origin = {
  sessionId: "ses_1",
  turnId: "turn_msg_1",
  at: 1,
  native: { backend: "serve-legacy", type: "message.part.updated", id: "evt_1" },
};
const initial: PartsState = {
  ...startTurn(initialTurnState, "msg_1"),
  parts: new Map(),
  partTypes: new Map(),
  openTools: new Map(),
  subagents: new Map(),
};

type TextPart = Extract<Part, { type: "text" | "reasoning" }>;
type ToolPart = Extract<Part, { type: "tool" }>;
type ToolState = ToolPart["state"];

/** Feeds snapshots in order: the state after the last, and each snapshot's events. */
function feed<P>(
  snapshot: (state: PartsState, part: P, emit: ReturnType<typeof emitterInto>) => PartsState,
  parts: P[],
) {
  let state = initial;
  const steps: CanonicalEvent[][] = [];
  for (const part of parts) {
    const events: CanonicalEvent[] = [];
    state = snapshot(
      state,
      part,
      emitterInto(events, () => origin),
    );
    steps.push(events);
  }
  return { state, steps, types: steps.map((events) => events.map((event) => event.type)) };
}

const text = (change: Partial<TextPart> = {}): TextPart => ({
  id: "prt_t",
  sessionID: "ses_1",
  messageID: "msg_a",
  type: "text",
  text: "hel",
  time: { start: 1 },
  ...change,
});

const tool = (state: ToolState, toolName = "bash"): ToolPart => ({
  id: "prt_c",
  sessionID: "ses_1",
  messageID: "msg_a",
  type: "tool",
  callID: "call_1",
  tool: toolName,
  state,
});
const input = { command: "ls" };

describe("textPartSnapshot", () => {
  it("starts a part at its first snapshot and ends it once, at the one with an end time", () => {
    const done = text({ text: "hello", time: { start: 1, end: 2 } });
    const { state, steps, types } = feed(textPartSnapshot, [text(), text(), done, done]);
    expect(types).toEqual([["text.started"], [], ["text.ended"], []]);
    expect(steps[2]?.[0]?.data).toEqual({ partId: "msg_a/prt_t", stepId: "msg_a", text: "hello" });
    expect(state.turn?.finalText).toEqual(["hello"]);
    expect(state.parts.get("prt_t")).toBe("text-ended");
    expect(state.partTypes.get("prt_t")).toBe("text");
  });

  it("gives a whole part seen once both events; reasoning is not the turn's text", () => {
    const { state, types } = feed(textPartSnapshot, [
      text({ type: "reasoning", text: "hmm", time: { start: 1, end: 2 } }),
    ]);
    expect(types).toEqual([["reasoning.started", "reasoning.ended"]]);
    expect(state.turn?.finalText).toEqual([]);
    expect(state.partTypes.get("prt_t")).toBe("reasoning");
  });
});

describe("toolPartSnapshot", () => {
  it("follows pending, running and completed, each once, the call open until it settles", () => {
    const completed = tool({
      status: "completed",
      input,
      output: "a\n",
      title: "ls",
      metadata: {},
    });
    const { state, steps, types } = feed(toolPartSnapshot, [
      tool({ status: "pending", input: {} }),
      tool({ status: "running", input }),
      tool({ status: "running", input }),
      completed,
      completed,
    ]);
    expect(types).toEqual([
      ["tool.input.started"],
      ["tool.input.ended", "tool.called"],
      [],
      ["tool.succeeded"],
      [],
    ]);
    expect(steps[1]?.map((event) => event.data)).toEqual([
      { callId: "call_1", input: '{"command":"ls"}' },
      { callId: "call_1", tool: "bash", input, stepId: "msg_a" },
    ]);
    expect(steps[3]?.[0]?.data).toEqual({ callId: "call_1", output: "a\n", title: "ls" });
    expect(state.openTools.size).toBe(0);
    expect(state.parts.get("prt_c")).toBe("done");
  });

  it("gives a call first seen failed every step to its failure, with the error's kind", () => {
    const message = "The user rejected permission to use this specific tool call.";
    const { state, steps, types } = feed(toolPartSnapshot, [
      tool({ status: "error", input, error: message }),
    ]);
    expect(types).toEqual([
      ["tool.input.started", "tool.input.ended", "tool.called", "tool.failed"],
    ]);
    expect(steps[0]?.[3]?.data).toEqual({
      callId: "call_1",
      error: { kind: "permission-rejected", message },
    });
    expect(state.openTools.size).toBe(0);
  });

  it("keeps a running call open", () => {
    const { state } = feed(toolPartSnapshot, [tool({ status: "running", input })]);
    expect([...state.openTools]).toEqual([["prt_c", "call_1"]]);
  });

  it("starts and ends a task call's subagent once its child session is known", () => {
    const task = { subagent_type: "general", description: "look", prompt: "go" };
    const { state, steps, types } = feed(toolPartSnapshot, [
      tool({ status: "running", input: task }, "task"),
      tool({ status: "running", input: task, metadata: { sessionId: "ses_child" } }, "task"),
      tool({ status: "completed", input: task, output: "found", title: "t", metadata: {} }, "task"),
    ]);
    expect(types).toEqual([
      ["tool.input.started", "tool.input.ended", "tool.called"],
      ["subagent.started"],
      ["subagent.ended", "tool.succeeded"],
    ]);
    expect(steps[1]?.[0]?.data).toEqual({
      callId: "call_1",
      childSessionId: "ses_child",
      agent: "general",
      description: "look",
    });
    expect(steps[2]?.[0]?.data).toEqual({
      callId: "call_1",
      childSessionId: "ses_child",
      result: "found",
    });
    expect(state.subagents.get("call_1")).toBe("ses_child");
  });
});
