import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NumberedEvents } from "../../test/support/numbered-events.js";
import type { CanonicalEvent, Outcome, Usage } from "../events/canonical.js";
import {
  type AssistantMessage,
  type Conversation,
  conversationOf,
  emptyConversation,
  type Message,
  type Part,
  reduceConversation,
} from "./conversation.js";

const SESSION = "ses_conv";
const USAGE: Usage = {
  tokens: { input: 10, output: 5, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
  cost: 0.01,
};

/** One session's events, durable ones numbered. */
class Transcript extends NumberedEvents {
  constructor() {
    super(SESSION);
  }
}

// --- Random but realistic sessions: a script of turns, expanded into canonical events. ---

type Item =
  | { kind: "text" | "reasoning"; text: string; pieces: number }
  | {
      kind: "tool";
      tool: string;
      input: Record<string, unknown>;
      streamed: boolean;
      ask: "once" | "always" | "reject" | "unanswered" | undefined;
      result: { output: string } | { error: string };
      progress: number;
    }
  | { kind: "question"; question: string; answer: string | undefined }
  | { kind: "subagent"; result: string | undefined };

interface Step {
  items: Item[];
  failed: boolean;
}

interface Turn {
  text: string;
  files: string[] | undefined;
  /** Admitted (queued) while the turn before it still ran. */
  queuedEarly: boolean;
  /** An input steered into this turn after its first step. */
  steer: string | undefined;
  /** An input queued during this turn and cancelled before it ran. */
  cancelled: string | undefined;
  steps: Step[];
  outcome: Outcome;
}

const text = fc.string({ unit: "binary", maxLength: 40 });

const item: fc.Arbitrary<Item> = fc.oneof(
  fc.record({
    kind: fc.constantFrom("text" as const, "reasoning" as const),
    text,
    pieces: fc.integer({ min: 0, max: 4 }),
  }),
  fc.record({
    kind: fc.constant("tool" as const),
    tool: fc.constantFrom("bash", "edit", "read"),
    // Through JSON, as every real tool input came: plain objects, not fast-check's
    // null-prototype ones.
    input: fc
      .record({ command: text, extra: fc.jsonValue({ maxDepth: 2 }) })
      .map((value): Record<string, unknown> => JSON.parse(JSON.stringify(value))),
    streamed: fc.boolean(),
    ask: fc.constantFrom("once", "always", "reject", "unanswered", undefined),
    result: fc.oneof(fc.record({ output: text }), fc.record({ error: text })),
    progress: fc.integer({ min: 0, max: 2 }),
  }),
  fc.record({
    kind: fc.constant("question" as const),
    question: text,
    answer: fc.option(text, { nil: undefined }),
  }),
  fc.record({
    kind: fc.constant("subagent" as const),
    result: fc.option(text, { nil: undefined }),
  }),
);

const turn: fc.Arbitrary<Turn> = fc.record({
  text,
  files: fc.option(fc.array(fc.constantFrom("a.png", "b.pdf"), { maxLength: 2 }), {
    nil: undefined,
  }),
  queuedEarly: fc.boolean(),
  steer: fc.option(text, { nil: undefined }),
  cancelled: fc.option(text, { nil: undefined }),
  steps: fc.array(fc.record({ items: fc.array(item, { maxLength: 4 }), failed: fc.boolean() }), {
    minLength: 1,
    maxLength: 3,
  }),
  outcome: fc.constantFrom("completed", "interrupted", "failed"),
});

const script = fc.array(turn, { maxLength: 4 });

/** The events of `turns`, with ephemeral ones (deltas, progress, usage) interleaved. */
function expand(turns: readonly Turn[]): CanonicalEvent[] {
  const out = new Transcript();
  out.add("session.created", { title: "random", directory: "/work" });
  turns.forEach((current, index) => {
    const inputId = `in_${index}`;
    const turnId = `turn_${inputId}`;
    if (index === 0 || !current.queuedEarly) admit(out, current, inputId);
    out.add("turn.started", { inputId }, turnId);
    current.steps.forEach((step, stepIndex) => {
      const stepId = `${turnId}/step_${stepIndex}`;
      out.add("step.started", { stepId, model: { providerID: "demo", modelID: "demo-1" } }, turnId);
      for (const [partIndex, part] of step.items.entries()) {
        expandItem(out, turnId, stepId, `${stepId}/${partIndex}`, part);
      }
      if (step.failed) {
        out.add("step.failed", { stepId, error: { kind: "provider", message: "boom" } }, turnId);
      } else {
        out.add("step.ended", { stepId, finish: "stop", usage: USAGE }, turnId);
      }
      out.add("usage.updated", { usage: USAGE }, turnId);
      if (stepIndex === 0 && current.steer !== undefined) {
        const steerId = `steer_${index}`;
        out.add(
          "input.admitted",
          { inputId: steerId, text: current.steer, delivery: "steer" },
          turnId,
        );
        out.add("input.delivered", { inputId: steerId }, turnId);
      }
    });
    if (current.cancelled !== undefined) {
      const cancelledId = `cancelled_${index}`;
      out.add("input.admitted", {
        inputId: cancelledId,
        text: current.cancelled,
        delivery: "queue",
      });
      out.add("input.cancelled", { inputId: cancelledId, reason: "interrupted" });
    }
    const next = turns[index + 1];
    if (next?.queuedEarly) admit(out, next, `in_${index + 1}`);
    out.add(
      "turn.ended",
      {
        outcome: current.outcome,
        usage: USAGE,
        ...(current.outcome === "failed" ? { error: { kind: "provider", message: "boom" } } : {}),
      },
      turnId,
    );
  });
  return out.events;
}

function admit(out: Transcript, current: Turn, inputId: string): void {
  const files = current.files === undefined ? {} : { files: current.files };
  out.add("input.admitted", { inputId, text: current.text, delivery: "queue", ...files });
}

function expandItem(out: Transcript, turnId: string, stepId: string, id: string, part: Item): void {
  switch (part.kind) {
    case "text":
    case "reasoning": {
      const partId = `${id}/${part.kind}`;
      out.add(`${part.kind}.started`, { partId, stepId }, turnId);
      for (const delta of pieces(part.text, part.pieces)) {
        out.add(`${part.kind}.delta`, { partId, delta }, turnId);
      }
      out.add(`${part.kind}.ended`, { partId, stepId, text: part.text }, turnId);
      return;
    }
    case "tool": {
      const callId = `${id}/call`;
      if (part.streamed) {
        out.add("tool.input.started", { callId, tool: part.tool, stepId }, turnId);
        for (const delta of pieces(JSON.stringify(part.input), 2)) {
          out.add("tool.input.delta", { callId, delta }, turnId);
        }
        out.add("tool.input.ended", { callId, input: JSON.stringify(part.input) }, turnId);
      }
      out.add("tool.called", { callId, tool: part.tool, input: part.input, stepId }, turnId);
      if (part.ask !== undefined) {
        const requestId = `${id}/per`;
        out.add(
          "permission.asked",
          { requestId, permission: part.tool, patterns: ["*"], callId },
          turnId,
        );
        if (part.ask !== "unanswered")
          out.add("permission.replied", { requestId, reply: part.ask }, turnId);
      }
      for (let tick = 0; tick < part.progress; tick++) {
        out.add("tool.progress", { callId, metadata: { tick } }, turnId);
      }
      if ("output" in part.result) {
        out.add("tool.succeeded", { callId, output: part.result.output }, turnId);
      } else {
        out.add(
          "tool.failed",
          { callId, error: { kind: "tool", message: part.result.error } },
          turnId,
        );
      }
      return;
    }
    case "question": {
      const requestId = `${id}/que`;
      out.add("question.asked", { requestId, questions: [{ question: part.question }] }, turnId);
      if (part.answer === undefined) out.add("question.rejected", { requestId }, turnId);
      else out.add("question.replied", { requestId, answers: [[part.answer]] }, turnId);
      return;
    }
    case "subagent": {
      const callId = `${id}/task`;
      const childSessionId = `ses_child_${id}`;
      out.add("tool.called", { callId, tool: "task", input: {} }, turnId);
      out.add("subagent.started", { callId, childSessionId, agent: "general" }, turnId);
      const result = part.result === undefined ? {} : { result: part.result };
      out.add("subagent.ended", { callId, childSessionId, ...result }, turnId);
      out.add("tool.succeeded", { callId, output: part.result ?? "" }, turnId);
      return;
    }
  }
}

/** `text` cut into `count` pieces (some may be empty). */
function pieces(value: string, count: number): string[] {
  const size = Math.ceil(value.length / Math.max(count, 1));
  return Array.from({ length: count }, (_, index) => value.slice(index * size, (index + 1) * size));
}

/** What the conversation of `expand(turns)` must be, written from the script directly. */
function expectedMessages(turns: readonly Turn[]): Message[] {
  const messages: Message[] = [];
  const user = (current: Turn, index: number): Message => ({
    role: "user",
    inputId: `in_${index}`,
    turnId: `turn_in_${index}`,
    text: current.text,
    ...(current.files === undefined ? {} : { files: current.files }),
  });
  turns.forEach((current, index) => {
    const turnId = `turn_in_${index}`;
    if (index === 0 || !current.queuedEarly) messages.push(user(current, index));
    const partsOf = (steps: readonly Step[], first: number) =>
      steps.flatMap((step, offset) =>
        step.items.flatMap((part, partIndex) =>
          expectedParts(`${turnId}/step_${first + offset}/${partIndex}`, part),
        ),
      );
    const ending = {
      outcome: current.outcome,
      usage: USAGE,
      ...(current.outcome === "failed" ? { error: { kind: "provider", message: "boom" } } : {}),
    };
    if (current.steer === undefined) {
      messages.push({ role: "assistant", turnId, parts: partsOf(current.steps, 0), ...ending });
    } else {
      // Steered after its first step: what follows answers the steer, drawn after it.
      messages.push({ role: "assistant", turnId, parts: partsOf(current.steps.slice(0, 1), 0) });
      const steer = `steer_${index}`;
      messages.push({ role: "user", inputId: steer, turnId, text: current.steer, delivered: true });
      const after: AssistantMessage = {
        role: "assistant",
        turnId,
        parts: partsOf(current.steps.slice(1), 1),
        ...ending,
      };
      messages.push(after);
    }
    if (current.cancelled !== undefined) {
      messages.push({
        role: "user",
        inputId: `cancelled_${index}`,
        text: current.cancelled,
        cancelled: "interrupted",
      });
    }
    const next = turns[index + 1];
    if (next?.queuedEarly) messages.push(user(next, index + 1));
  });
  return messages;
}

function expectedParts(id: string, part: Item): Part[] {
  switch (part.kind) {
    case "text":
    case "reasoning":
      return [{ type: part.kind, partId: `${id}/${part.kind}`, text: part.text }];
    case "tool": {
      const callId = `${id}/call`;
      const outcome =
        "output" in part.result
          ? { state: "succeeded" as const, output: part.result.output }
          : { state: "failed" as const, error: { kind: "tool", message: part.result.error } };
      const tool: Part = { type: "tool", callId, tool: part.tool, input: part.input, ...outcome };
      if (part.ask === undefined) return [tool];
      const reply = part.ask === "unanswered" ? {} : { reply: part.ask };
      const requestId = `${id}/per`;
      return [
        tool,
        { type: "permission", requestId, permission: part.tool, patterns: ["*"], callId, ...reply },
      ];
    }
    case "question": {
      const requestId = `${id}/que`;
      const questions = [{ question: part.question }];
      return part.answer === undefined
        ? [{ type: "question", requestId, questions, state: "rejected" }]
        : [{ type: "question", requestId, questions, state: "replied", answers: [[part.answer]] }];
    }
    case "subagent": {
      const callId = `${id}/task`;
      const result = part.result === undefined ? {} : { result: part.result };
      return [
        {
          type: "tool",
          callId,
          tool: "task",
          input: {},
          state: "succeeded",
          output: part.result ?? "",
        },
        {
          type: "subagent",
          callId,
          childSessionId: `ses_child_${id}`,
          agent: "general",
          state: "ended",
          ...result,
        },
      ];
    }
  }
}

/** Freezes `value` and everything in it: a reducer that mutates its input then throws. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

const roundTrip = (conversation: Conversation): Conversation =>
  JSON.parse(JSON.stringify(conversation)) as Conversation;

describe("conversationOf (properties)", () => {
  it("resumes from a saved conversation at any split point to the same result", () => {
    fc.assert(
      fc.property(script, (turns) => {
        const events = deepFreeze(expand(turns));
        const whole = conversationOf(events);
        for (let split = 0; split <= events.length; split++) {
          const saved = deepFreeze(roundTrip(conversationOf(events.slice(0, split), SESSION)));
          const resumed = events.slice(split).reduce(reduceConversation, saved);
          expect(resumed).toStrictEqual(whole);
        }
      }),
      { numRuns: 150 },
    );
  });

  it("is the conversation the script describes", () => {
    fc.assert(
      fc.property(script, (turns) => {
        const events = expand(turns);
        expect(conversationOf(events)).toStrictEqual({
          sessionId: SESSION,
          messages: expectedMessages(turns),
          lastSeq: events.filter((event) => event.durable).length,
        });
      }),
      { numRuns: 150 },
    );
  });

  it("ignores ephemeral events: the same object comes back", () => {
    fc.assert(
      fc.property(script, (turns) => {
        const events = expand(turns);
        const whole = conversationOf(events);
        for (const event of events.filter((candidate) => !candidate.durable)) {
          expect(reduceConversation(whole, event)).toBe(whole);
        }
        expect(conversationOf(events.filter((event) => event.durable))).toStrictEqual(whole);
      }),
      { numRuns: 50 },
    );
  });
});

describe("conversationOf (examples)", () => {
  it("builds a turn with text, a tool that asked for permission, and the outcome", () => {
    const out = new Transcript();
    const turnId = "turn_in_1";
    out.add("input.admitted", { inputId: "in_1", text: "list files", delivery: "queue" });
    out.add("turn.started", { inputId: "in_1" }, turnId);
    out.add("step.started", { stepId: "s1" }, turnId);
    out.add("reasoning.started", { partId: "r1" }, turnId);
    out.add("reasoning.delta", { partId: "r1", delta: "The user" }, turnId);
    out.add("reasoning.ended", { partId: "r1", text: "The user wants ls." }, turnId);
    out.add("tool.input.started", { callId: "c1", tool: "bash" }, turnId);
    out.add("tool.input.ended", { callId: "c1", input: '{"command":"ls"}' }, turnId);
    out.add("tool.called", { callId: "c1", tool: "bash", input: { command: "ls" } }, turnId);
    out.add(
      "permission.asked",
      { requestId: "per_1", permission: "bash", patterns: ["ls"], callId: "c1" },
      turnId,
    );
    out.add("permission.replied", { requestId: "per_1", reply: "once" }, turnId);
    out.add("tool.succeeded", { callId: "c1", output: "a.ts\n", title: "ls" }, turnId);
    out.add("step.ended", { stepId: "s1", finish: "tool-calls" }, turnId);
    out.add("step.started", { stepId: "s2" }, turnId);
    out.add("text.started", { partId: "t1" }, turnId);
    out.add("text.delta", { partId: "t1", delta: "One " }, turnId);
    out.add("text.ended", { partId: "t1", text: "One file." }, turnId);
    out.add("step.ended", { stepId: "s2", finish: "stop", usage: USAGE }, turnId);
    out.add("turn.ended", { outcome: "completed", usage: USAGE, text: "One file." }, turnId);

    expect(conversationOf(out.events)).toStrictEqual({
      sessionId: SESSION,
      lastSeq: 17,
      messages: [
        { role: "user", inputId: "in_1", turnId, text: "list files" },
        {
          role: "assistant",
          turnId,
          outcome: "completed",
          usage: USAGE,
          parts: [
            { type: "reasoning", partId: "r1", text: "The user wants ls." },
            {
              type: "tool",
              callId: "c1",
              tool: "bash",
              input: { command: "ls" },
              state: "succeeded",
              output: "a.ts\n",
              title: "ls",
            },
            {
              type: "permission",
              requestId: "per_1",
              permission: "bash",
              patterns: ["ls"],
              callId: "c1",
              reply: "once",
            },
            { type: "text", partId: "t1", text: "One file." },
          ],
        },
      ],
    });
  });

  it("shows a part that has started but not ended, without its deltas", () => {
    const out = new Transcript();
    out.add("turn.started", {}, "turn_x");
    out.add("text.started", { partId: "t1" }, "turn_x");
    out.add("text.delta", { partId: "t1", delta: "partial" }, "turn_x");
    out.add("tool.input.started", { callId: "c1", tool: "edit" }, "turn_x");
    expect(conversationOf(out.events).messages).toStrictEqual([
      {
        role: "assistant",
        turnId: "turn_x",
        parts: [
          { type: "text", partId: "t1", text: "" },
          { type: "tool", callId: "c1", tool: "edit", input: {}, state: "running" },
        ],
      },
    ]);
  });

  it("starts a turn's message at its first event when `turn.started` was not kept", () => {
    const out = new Transcript();
    out.add("text.ended", { partId: "t1", text: "late" }, "turn_y");
    out.add("turn.ended", { outcome: "interrupted" }, "turn_y");
    expect(conversationOf(out.events).messages).toStrictEqual([
      {
        role: "assistant",
        turnId: "turn_y",
        outcome: "interrupted",
        parts: [{ type: "text", partId: "t1", text: "late" }],
      },
    ]);
  });

  it("ignores replies and results for parts it never saw, and other sessions' events", () => {
    const out = new Transcript();
    out.add("tool.succeeded", { callId: "nope", output: "" }, "turn_z");
    out.add("permission.replied", { requestId: "nope", reply: "reject" }, "turn_z");
    out.add("input.delivered", { inputId: "nope" }, "turn_z");
    const conversation = conversationOf(out.events);
    expect(conversation).toStrictEqual({ sessionId: SESSION, messages: [], lastSeq: 3 });
    const foreign = { ...out.events[0], sessionId: "ses_other", seq: 99 } as CanonicalEvent;
    expect(reduceConversation(conversation, foreign)).toBe(conversation);
  });

  describe("undo and redo", () => {
    const FILE = { path: "a.txt", status: "modified", additions: 1, deletions: 1 } as const;
    function threeTurns(): { out: Transcript; turn: (inputId: string, turnId: string) => void } {
      const out = new Transcript();
      const turn = (inputId: string, turnId: string) => {
        out.add("input.admitted", { inputId, text: inputId, delivery: "queue" }, turnId);
        out.add("turn.started", { inputId }, turnId);
        out.add("turn.ended", { outcome: "completed", text: inputId }, turnId);
      };
      turn("in_1", "turn_1");
      turn("in_2", "turn_2");
      turn("in_3", "turn_3");
      return { out, turn };
    }
    const inputs = (messages: readonly Message[]) =>
      messages.flatMap((message) => (message.role === "user" ? [message.inputId] : []));

    it("an undo moves its input and all after it to `undone`, with the files it put back", () => {
      const { out } = threeTurns();
      const before = conversationOf(out.events);
      out.add("session.reverted", { inputId: "in_2", files: [FILE] });
      const undone = conversationOf(out.events);
      expect(inputs(undone.messages)).toEqual(["in_1"]);
      expect(undone.messages).toEqual(before.messages.slice(0, 2));
      expect(undone.undone).toEqual({
        inputId: "in_2",
        messages: before.messages.slice(2),
        files: [FILE],
      });
      expect(undone.lastSeq).toBe(10);
      // It survives JSON and is what the wire carries.
      expect(roundTrip(undone)).toStrictEqual(undone);
    });

    it("a redo brings the messages back as they were", () => {
      const { out } = threeTurns();
      const before = conversationOf(out.events);
      out.add("session.reverted", { inputId: "in_2", files: [FILE] });
      out.add("session.unreverted", { inputId: "in_2" });
      const redone = conversationOf(out.events);
      expect(redone.messages).toEqual(before.messages);
      expect(redone).not.toHaveProperty("undone");
    });

    it("the next input makes the undo final: the undone messages go, a redo then does nothing", () => {
      const { out, turn } = threeTurns();
      out.add("session.reverted", { inputId: "in_2" });
      turn("in_4", "turn_4");
      out.add("session.unreverted", { inputId: "in_2" });
      const after = conversationOf(out.events);
      expect(inputs(after.messages)).toEqual(["in_1", "in_4"]);
      expect(after).not.toHaveProperty("undone");
    });

    it("a second undo moves the point either way, over what the first took out", () => {
      const { out } = threeTurns();
      const before = conversationOf(out.events);
      out.add("session.reverted", { inputId: "in_3" });
      out.add("session.reverted", { inputId: "in_2" });
      const further = conversationOf(out.events);
      expect(inputs(further.messages)).toEqual(["in_1"]);
      expect(further.undone?.messages).toEqual(before.messages.slice(2));
      // Back to a later point: in_2's messages return, in_3's stay undone.
      out.add("session.reverted", { inputId: "in_3" });
      const nearer = conversationOf(out.events);
      expect(inputs(nearer.messages)).toEqual(["in_1", "in_2"]);
      expect(nearer.undone?.messages).toEqual(before.messages.slice(4));
    });

    it("an unknown input changes nothing; an undo kept before files were named reads as none", () => {
      const { out } = threeTurns();
      const before = conversationOf(out.events);
      out.add("session.reverted", { inputId: "in_unknown" });
      expect(conversationOf(out.events).messages).toEqual(before.messages);
      expect(conversationOf(out.events)).not.toHaveProperty("undone");
      out.add("session.reverted", { inputId: "in_3" });
      expect(conversationOf(out.events).undone?.files).toEqual([]);
    });
  });

  it("a fork names its origin; each continuation in a new OpenCode session is placed after the messages before it", () => {
    const out = new Transcript();
    out.add("input.admitted", { inputId: "in_1", text: "one", delivery: "queue" }, "turn_1");
    out.add("turn.started", { inputId: "in_1" }, "turn_1");
    out.add("turn.ended", { outcome: "completed", text: "a" }, "turn_1");
    const from = { sessionId: "ses_origin", inputId: "in_2" };
    out.add("session.forked", { from, upstreamId: SESSION });
    const forked = conversationOf(out.events);
    expect(forked.forkedFrom).toEqual(from);
    expect(forked.messages).toHaveLength(2);
    expect(forked).not.toHaveProperty("rehydrations");
    out.add("session.rehydrated", { previousUpstreamId: SESSION, upstreamId: "ses_new" });
    out.add("input.admitted", { inputId: "in_3", text: "three", delivery: "queue" }, "turn_3");
    const continued = conversationOf(out.events);
    expect(continued.rehydrations).toEqual([
      { previousUpstreamId: SESSION, upstreamId: "ses_new", afterMessages: 2 },
    ]);
    expect(continued.messages).toHaveLength(3);
    expect(continued.forkedFrom).toEqual(from);
    expect(continued.lastSeq).toBe(6);
    expect(roundTrip(continued)).toStrictEqual(continued);
  });

  it("an imported session names the OpenCode session its messages so far came from", () => {
    const out = new Transcript();
    out.add("input.admitted", { inputId: "in_1", text: "one", delivery: "queue" }, "turn_1");
    out.add("turn.started", { inputId: "in_1" }, "turn_1");
    out.add("turn.ended", { outcome: "completed", text: "a" }, "turn_1");
    expect(conversationOf(out.events)).not.toHaveProperty("imported");
    out.add("session.imported", { upstreamId: SESSION, messages: 2 });
    out.add("input.admitted", { inputId: "in_2", text: "two", delivery: "queue" }, "turn_2");
    const imported = conversationOf(out.events);
    expect(imported.imported).toEqual({ upstreamId: SESSION, afterMessages: 2 });
    expect(imported.messages).toHaveLength(3);
    expect(roundTrip(imported)).toStrictEqual(imported);
  });

  describe("compaction", () => {
    it("session.compacted marks the messages so far as summarised; later ones come after the mark", () => {
      const out = new Transcript();
      const turn = (inputId: string, turnId: string) => {
        out.add("input.admitted", { inputId, text: inputId, delivery: "queue" }, turnId);
        out.add("turn.started", { inputId }, turnId);
        out.add("turn.ended", { outcome: "completed", text: inputId }, turnId);
      };
      turn("in_1", "turn_1");
      expect(conversationOf(out.events).compacted).toBeUndefined();
      // The summary's own run: a turn no input started (serve-legacy), then the mark.
      out.add("turn.started", {}, "turn_summary");
      out.add("turn.ended", { outcome: "completed", text: "the summary" }, "turn_summary");
      out.add("session.compacted", {});
      const compacted = conversationOf(out.events);
      expect(compacted.compacted).toEqual({ messageCount: 3 });
      expect(roundTrip(compacted)).toEqual(compacted);
      turn("in_2", "turn_2");
      const after = conversationOf(out.events);
      expect(after.compacted).toEqual({ messageCount: 3 });
      expect(after.messages).toHaveLength(5);
      // Folded one event at a time from the saved conversation, the same.
      expect(out.events.slice(5).reduce(reduceConversation, compacted)).toEqual(after);
    });
  });

  it("needs a session id when there are no events", () => {
    expect(() => conversationOf([])).toThrow(/pass it/);
    expect(conversationOf([], SESSION)).toStrictEqual(emptyConversation(SESSION));
  });
});
