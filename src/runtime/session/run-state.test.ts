/**
 * The run state as a pure reducer, tested like the normalisers: canonical events in, state
 * out. Each event kind that changes it, the ones that do not, and the phase the watchdog
 * arms for.
 */
import { describe, expect, it } from "vitest";
import { canonicalEvent as event } from "../../../test/support/canonical-event.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import {
  initialRunState,
  isRunning,
  type RunState,
  reduceRunState,
  watchPhase,
  withAwaiting,
  withoutAwaiting,
} from "./run-state.js";

const reduce = (events: CanonicalEvent[], from: RunState = initialRunState): RunState =>
  events.reduce(reduceRunState, from);

/** A turn `turn_a` started from input `in_a`, which the session had handed to the backend. */
const started = reduce([event("turn_a", "turn.started", { inputId: "in_a" })], {
  ...initialRunState,
  awaiting: ["in_a", "in_b"],
});

describe("reduceRunState", () => {
  it("starts idle: nothing runs, nothing waits", () => {
    expect(initialRunState).toEqual({
      running: undefined,
      inStep: false,
      runningTools: new Set(),
      awaiting: [],
    });
    expect(isRunning(initialRunState)).toBe(false);
  });

  it("turn.started: the turn runs, and the input it took waits no longer", () => {
    expect(started).toEqual({
      running: "turn_a",
      inStep: false,
      runningTools: new Set(),
      awaiting: ["in_b"],
    });
  });

  it("turn.started without an input: the turn runs, what waits still waits", () => {
    const state = reduce(
      [event("turn_x", "turn.started", {})],
      withAwaiting(initialRunState, "in_b"),
    );
    expect(state).toMatchObject({ running: "turn_x", awaiting: ["in_b"] });
  });

  it("a new turn.started forgets the previous turn's step and tools", () => {
    const busy = reduce(
      [
        event("turn_a", "step.started", { stepId: "s1" }),
        event("turn_a", "tool.called", { callId: "c1", tool: "bash", input: {} }),
        event("turn_b", "turn.started", { inputId: "in_b" }),
      ],
      started,
    );
    expect(busy).toEqual({
      running: "turn_b",
      inStep: false,
      runningTools: new Set(),
      awaiting: [],
    });
  });

  it("turn.ended: nothing runs; the step and the tools end with it", () => {
    const state = reduce(
      [
        event("turn_a", "step.started", { stepId: "s1" }),
        event("turn_a", "tool.called", { callId: "c1", tool: "bash", input: {} }),
        event("turn_a", "turn.ended", { outcome: "interrupted" }),
      ],
      started,
    );
    expect(state).toEqual({
      running: undefined,
      inStep: false,
      runningTools: new Set(),
      awaiting: ["in_b"],
    });
  });

  it("turn.ended of another turn (a late one) leaves the running turn running", () => {
    const state = reduce([event("turn_old", "turn.ended", { outcome: "completed" })], started);
    expect(state.running).toBe("turn_a");
  });

  it("turn.ended of another turn (a held input taken back) keeps the running step and tools", () => {
    const state = reduce(
      [
        event("turn_a", "step.started", { stepId: "s1" }),
        event("turn_a", "tool.called", { callId: "c1", tool: "bash", input: {} }),
        event("turn_held", "turn.ended", { outcome: "interrupted", reason: "cancelled" }),
      ],
      started,
    );
    expect(state).toMatchObject({ running: "turn_a", inStep: true, runningTools: new Set(["c1"]) });
  });

  it("input.delivered: the input waits no longer", () => {
    const state = reduce([event("turn_a", "input.delivered", { inputId: "in_b" })], started);
    expect(state.awaiting).toEqual([]);
  });

  it("step.started / step.ended / step.failed: in a step of the running turn, then not", () => {
    const inStep = reduce([event("turn_a", "step.started", { stepId: "s1" })], started);
    expect(inStep.inStep).toBe(true);
    expect(
      reduce([event("turn_a", "step.ended", { stepId: "s1", finish: "stop" })], inStep),
    ).toEqual(started);
    const failed = event("turn_a", "step.failed", {
      stepId: "s1",
      error: { kind: "provider", message: "x" },
    });
    expect(reduce([failed], inStep).inStep).toBe(false);
  });

  it("a step of another turn is no step of the running turn", () => {
    const state = reduce([event("turn_old", "step.started", { stepId: "s9" })], started);
    expect(state.inStep).toBe(false);
  });

  it("tool.called / tool.succeeded / tool.failed: the running turn's tools, until they finish", () => {
    const calling = reduce(
      [
        event("turn_a", "tool.called", { callId: "c1", tool: "bash", input: {} }),
        event("turn_a", "tool.called", { callId: "c2", tool: "read", input: {} }),
        // An aborted tool of an older turn settling late is no tool of this one.
        event("turn_old", "tool.called", { callId: "c_old", tool: "bash", input: {} }),
      ],
      started,
    );
    expect(calling.runningTools).toEqual(new Set(["c1", "c2"]));
    const done = reduce(
      [
        event("turn_a", "tool.succeeded", { callId: "c1", output: "ok" }),
        event("turn_a", "tool.failed", { callId: "c2", error: { kind: "tool", message: "no" } }),
      ],
      calling,
    );
    expect(done.runningTools).toEqual(new Set());
  });

  it("does not change the state it is given", () => {
    const before = structuredClone(started);
    reduce(
      [
        event("turn_a", "step.started", { stepId: "s1" }),
        event("turn_a", "tool.called", { callId: "c1", tool: "bash", input: {} }),
        event("turn_a", "turn.ended", { outcome: "completed" }),
      ],
      started,
    );
    expect(started).toEqual(before);
  });

  it("asks, connection changes, text, deltas and the rest change nothing", () => {
    const unchanged = [
      event("turn_a", "input.admitted", { inputId: "in_c", text: "x", delivery: "queue" }),
      event("turn_a", "permission.asked", { requestId: "per_1", permission: "edit", patterns: [] }),
      event("turn_a", "permission.replied", { requestId: "per_1", reply: "once" }),
      event("turn_a", "question.asked", { requestId: "que_1", questions: [] }),
      event("turn_a", "question.rejected", { requestId: "que_1" }),
      event(undefined, "connection.changed", { state: "reconnecting", since: 0, attempt: 1 }),
      event(undefined, "connection.changed", { state: "connected", since: 1, attempt: 0 }),
      event("turn_a", "text.delta", { partId: "p1", delta: "hi" }),
      event("turn_a", "text.ended", { partId: "p1", text: "hi" }),
      event("turn_a", "usage.updated", {
        usage: {
          tokens: { input: 1, output: 1, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
          cost: 0,
        },
      }),
      event(undefined, "native.unknown", { nativeType: "x", raw: {} }),
    ];
    for (const one of unchanged) expect(reduceRunState(started, one), one.type).toBe(started);
  });
});

describe("awaiting inputs (the session's own, before any event names them)", () => {
  it("are added once, in order, and removed by id", () => {
    const state = withAwaiting(withAwaiting(withAwaiting(initialRunState, "in_1"), "in_2"), "in_1");
    expect(state.awaiting).toEqual(["in_1", "in_2"]);
    expect(isRunning(state)).toBe(true);
    expect(withoutAwaiting(state, "in_1").awaiting).toEqual(["in_2"]);
    expect(withoutAwaiting(state, "in_9")).toBe(state);
  });
});

describe("watchPhase", () => {
  it("waits for a step while an input waits or a turn runs outside a step", () => {
    expect(watchPhase(initialRunState, true)).toBe("idle");
    expect(watchPhase(withAwaiting(initialRunState, "in_1"), true)).toBe("waiting-for-step");
    expect(watchPhase(started, true)).toBe("waiting-for-step");
  });

  it("watches a step for silence where tool calls are live, and rests where they are not", () => {
    const inStep = reduce([event("turn_a", "step.started", { stepId: "s1" })], started);
    expect(watchPhase(inStep, true)).toBe("in-step");
    expect(watchPhase(inStep, false)).toBe("idle");
  });

  it("rests while a tool runs: a tool may run for minutes", () => {
    const calling = reduce(
      [
        event("turn_a", "step.started", { stepId: "s1" }),
        event("turn_a", "tool.called", { callId: "c1", tool: "bash", input: {} }),
      ],
      started,
    );
    expect(watchPhase(calling, true)).toBe("idle");
    const after = reduce(
      [event("turn_a", "tool.succeeded", { callId: "c1", output: "" })],
      calling,
    );
    expect(watchPhase(after, true)).toBe("in-step");
  });
});
