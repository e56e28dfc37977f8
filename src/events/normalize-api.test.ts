/**
 * The 1.18 `/api` normaliser on durable streams recorded from the real server (replays).
 */
import { describe, expect, it } from "vitest";
import { recordedEvents } from "../../test/support/fixture-events.js";
import { fixturePath } from "../../test/support/fixture-files.js";
import { parseApiEvent } from "../opencode-protocol/api/events.js";
import type { CanonicalEvent } from "./canonical.js";
import { apiInterruptRequested, initialApiState, normalizeApiEvent } from "./normalize-api.js";
import { MAX_TODO_CHARS, MAX_TODOS } from "./todo-list.js";

function normalizeFixture(name: string): CanonicalEvent[] {
  const events = recordedEvents(
    fixturePath(`opencode-1.18.33/${name}.transcript.ndjson`),
    "v2.session.events",
  );
  let state = initialApiState("ses_test");
  const out: CanonicalEvent[] = [];
  for (const raw of events) {
    const result = normalizeApiEvent(state, parseApiEvent(raw));
    state = result.state;
    out.push(...result.events);
  }
  return out;
}

/** A normaliser fed frame by frame, keeping its state between them. */
function handFed() {
  let state = initialApiState("ses_test");
  return {
    feed(raw: unknown): CanonicalEvent[] {
      const result = normalizeApiEvent(state, parseApiEvent(raw));
      state = result.state;
      return result.events;
    },
    interruptRequested(): void {
      state = apiInterruptRequested(state);
    },
  };
}

const types = (events: CanonicalEvent[]) => events.map((event) => event.type);
const turns = (events: CanonicalEvent[]) =>
  events.flatMap((event) => (event.type === "turn.ended" ? [event.data] : []));

describe("normalizeApiEvent on recorded 1.18.33 streams", () => {
  it("a text turn", () => {
    const events = normalizeFixture("api-text-turn");
    expect(types(events)).toEqual([
      "input.admitted",
      "turn.started",
      "input.delivered",
      "step.started",
      "text.started",
      "text.ended",
      "step.ended",
      "turn.ended",
    ]);
    expect(turns(events)).toEqual([
      expect.objectContaining({ outcome: "completed", text: "tok1 tok2 tok3 tok4" }),
    ]);
    // Every event of the turn carries its id; the admission comes before the turn exists.
    const turnId = events.find((event) => event.type === "turn.started")?.turnId;
    expect(turnId).toMatch(/^turn_msg_/);
    expect(events.slice(1).every((event) => event.turnId === turnId)).toBe(true);
  });

  it("steer mid-turn: one turn holding both inputs, the steer delivered inside it", () => {
    const events = normalizeFixture("api-steer-mid-turn");
    expect(types(events).filter((type) => type.startsWith("turn."))).toEqual([
      "turn.started",
      "turn.ended",
    ]);
    const delivered = events.filter((event) => event.type === "input.delivered");
    expect(delivered).toHaveLength(2);
    expect(new Set(delivered.map((event) => event.turnId)).size).toBe(1);
    expect(turns(events)[0]).toMatchObject({ outcome: "completed", text: "steered" });
  });

  it("queue behind a turn: two turns in order", () => {
    const events = normalizeFixture("api-queue-behind-turn");
    const ended = turns(events);
    expect(ended.map((turn) => turn.outcome)).toEqual(["completed", "completed"]);
    expect(ended[1]?.text).toBe("second");
    const started = events.filter((event) => event.type === "turn.started");
    expect(started).toHaveLength(2);
    expect(started[0]?.turnId).not.toBe(started[1]?.turnId);
  });

  it("interrupt mid-tool: the turn ends interrupted and the next one completes", () => {
    const events = normalizeFixture("api-interrupt-mid-tool");
    expect(types(events).slice(0, 10)).toEqual([
      "input.admitted",
      "turn.started",
      "input.delivered",
      "step.started",
      "tool.input.started",
      "tool.input.ended",
      "tool.called",
      "tool.failed",
      "step.ended",
      "turn.ended",
    ]);
    expect(turns(events).map((turn) => turn.outcome)).toEqual(["interrupted", "completed"]);
  });

  it("a provider error fails the turn with the provider's message", () => {
    const events = normalizeFixture("api-provider-error");
    const [failed] = turns(events);
    expect(failed).toMatchObject({ outcome: "failed", reason: "step-failed" });
    expect(failed?.error?.message).toMatch(/HTTP 400/);
  });

  it("a bash tool turn ends once, after the tool's output came back", () => {
    const events = normalizeFixture("api-bash-tool");
    const succeeded = events.find((event) => event.type === "tool.succeeded");
    expect(succeeded?.data).toMatchObject({ output: expect.stringContaining("hi") });
    expect(turns(events)).toHaveLength(1);
    expect(types(events).indexOf("tool.succeeded")).toBeLessThan(
      types(events).indexOf("turn.ended"),
    );
  });

  it("an interrupt asked for ends the turn interrupted at the next step end, whatever the finish", () => {
    const normalizer = handFed();
    const { feed } = normalizer;
    const data = { timestamp: 1, sessionID: "ses_test" };
    feed({
      id: "e1",
      type: "session.next.prompted",
      data: { ...data, messageID: "msg_1", prompt: { text: "x" }, delivery: "queue" },
    });
    normalizer.interruptRequested();
    const ended = feed({
      id: "e2",
      type: "session.next.step.ended",
      data: {
        ...data,
        assistantMessageID: "msg_2",
        finish: "stop",
        cost: 0,
        tokens: { input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } },
      },
    });
    expect(ended.map((event) => event.type)).toEqual(["step.ended", "turn.ended"]);
    expect(ended[1]?.data).toMatchObject({ outcome: "interrupted" });
  });

  it("an input delivered while an interrupted run has not ended: one frame, two turns, distinct ids", () => {
    const normalizer = handFed();
    const { feed } = normalizer;
    const data = { timestamp: 1, sessionID: "ses_test" };
    const prompt = (id: string, messageID: string) => ({
      id,
      type: "session.next.prompted",
      data: { ...data, messageID, prompt: { text: "x" }, delivery: "queue" },
    });
    feed(prompt("e1", "msg_1"));
    // A rejected permission stops the run with no step end: the next input ends the turn.
    normalizer.interruptRequested();
    const events = feed(prompt("e2", "msg_3"));
    expect(events.map((event) => event.type)).toEqual([
      "turn.ended",
      "turn.started",
      "input.delivered",
    ]);
    // The store keeps one event per id: a shared id would cost the new turn its start.
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
  });

  it("a queued input delivered while a turn runs here ends that turn: its run was lost", () => {
    // server-sigkill finding 3: the `prompted` of an input whose server was SIGKILLed before
    // its first step is read after the restart; the next queued input must start its own
    // turn, not join that dead run (its events were dropped with it; it ended `stalled`).
    const { feed } = handFed();
    const data = { timestamp: 1, sessionID: "ses_test" };
    const admitted = (id: string, messageID: string) => ({
      id,
      type: "session.next.prompt.admitted",
      data: { ...data, messageID, prompt: { text: "x" }, delivery: "queue" },
    });
    const prompted = (id: string, messageID: string) => ({
      id,
      type: "session.next.prompted",
      data: { ...data, messageID, prompt: { text: "x" }, delivery: "queue" },
    });
    feed(admitted("e1", "msg_1"));
    feed(prompted("e2", "msg_1"));
    feed(admitted("e3", "msg_2"));
    const events = feed(prompted("e4", "msg_2"));
    expect(events.map((event) => [event.type, event.turnId])).toEqual([
      ["turn.ended", "turn_msg_1"],
      ["turn.started", "turn_msg_2"],
      ["input.delivered", "turn_msg_2"],
    ]);
    expect(events[0]?.data).toMatchObject({ outcome: "failed", reason: "run-lost" });
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
  });

  it("a steered input delivered while a turn runs joins it", () => {
    const { feed } = handFed();
    const data = { timestamp: 1, sessionID: "ses_test" };
    const frame = (id: string, type: string, messageID: string, delivery: string) => ({
      id,
      type,
      data: { ...data, messageID, prompt: { text: "x" }, delivery },
    });
    feed(frame("e1", "session.next.prompt.admitted", "msg_1", "queue"));
    feed(frame("e2", "session.next.prompted", "msg_1", "queue"));
    feed(frame("e3", "session.next.prompt.admitted", "msg_2", "steer"));
    const events = feed(frame("e4", "session.next.prompted", "msg_2", "steer"));
    expect(events.map((event) => [event.type, event.turnId])).toEqual([
      ["input.delivered", "turn_msg_1"],
    ]);
  });

  it("an agent switch (POST /api/session/{id}/agent) becomes agent.switched, durable, in no turn", () => {
    const { feed } = handFed();
    // As 1.18.33 puts it on the durable stream (test/e2e/sidecar-agents.test.ts sees it live).
    const events = feed({
      id: "evt_1",
      seq: 3,
      type: "session.next.agent.switched",
      data: { timestamp: 1, sessionID: "ses_test", messageID: "msg_9", agent: "plan" },
    });
    expect(events).toEqual([
      expect.objectContaining({ type: "agent.switched", durable: true, data: { agent: "plan" } }),
    ]);
    expect(events[0]?.turnId).toBeUndefined();
  });

  it("the todo list (live todo.updated) becomes the durable todo.updated, in the running turn, bounded", () => {
    const { feed } = handFed();
    feed({
      id: "evt_0",
      seq: 1,
      type: "session.next.prompted",
      durable: { aggregateID: "ses_test", seq: 1, version: 1 },
      data: {
        timestamp: 1,
        sessionID: "ses_test",
        messageID: "msg_1",
        prompt: { text: "plan" },
        delivery: "queue",
      },
    });
    const todos = [{ content: "Write the tests", status: "in_progress", priority: "high" }];
    // As 1.18.33 puts it on /api/event (test/e2e/sidecar-changes.test.ts sees it live).
    const live = (list: unknown[]) =>
      feed({ id: "evt_2", type: "todo.updated", data: { sessionID: "ses_test", todos: list } });
    expect(live(todos)).toEqual([
      expect.objectContaining({
        type: "todo.updated",
        durable: true,
        turnId: "turn_msg_1",
        data: { todos },
      }),
    ]);
    const long = Array.from({ length: MAX_TODOS + 5 }, (_, index) => ({
      content: `${index} ${"x".repeat(MAX_TODO_CHARS)}`,
      status: "pending",
      priority: "low",
      extra: "dropped",
    }));
    const [bounded] = live(long);
    if (bounded?.type !== "todo.updated") throw new Error("no todo.updated");
    expect(bounded.data.todos).toHaveLength(MAX_TODOS);
    expect(bounded.data.todos[0]?.content).toHaveLength(MAX_TODO_CHARS);
    expect(Object.keys(bounded.data.todos[0] ?? {})).toEqual(["content", "status", "priority"]);
  });

  it("turns an unknown native event into native.unknown, dropping nothing", () => {
    const result = normalizeApiEvent(
      initialApiState("ses_test"),
      parseApiEvent({ id: "e9", type: "session.next.hologram", data: { x: 1 } }),
    );
    expect(result.events).toEqual([
      expect.objectContaining({
        type: "native.unknown",
        durable: true,
        data: {
          nativeType: "session.next.hologram",
          raw: { id: "e9", type: "session.next.hologram", data: { x: 1 } },
        },
      }),
    ]);
  });
});
