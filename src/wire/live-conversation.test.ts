import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { recordedEvents } from "../../test/support/fixture-events.js";
import { fixturePath } from "../../test/support/fixture-files.js";
import { normalizeLegacyFrames } from "../../test/support/legacy-events.js";
import { NumberedEvents } from "../../test/support/numbered-events.js";
import type { CanonicalEvent } from "../events/canonical.js";
import { initialApiState, normalizeApiEvent } from "../events/normalize-api.js";
import { parseApiEvent } from "../opencode-protocol/api/events.js";
import { LiveSnapshots } from "../sidecar/live-snapshots.js";
import { conversationOf } from "./conversation.js";
import {
  emptyLiveConversation,
  type LiveConversation,
  liveConversationOf,
  reduceLive,
} from "./live-conversation.js";
import { LiveSnapshotSchema, liveFromSnapshot, liveSnapshotOf } from "./live-snapshot.js";

const SESSION = "ses_live";
const USAGE = {
  tokens: { input: 10, output: 5, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
  cost: 0,
};

/** One session's events as the sidecar streams them: durable ones numbered in order. */
class Stream extends NumberedEvents {
  constructor() {
    super(SESSION);
  }

  state(): LiveConversation {
    return liveConversationOf(SESSION, this.events);
  }
}

/**
 * The recorded 1.18.33 `/api` fixtures, normalised by the serve backend's own code and
 * numbered: the durable stream (`v2.session.events`), or the live one with the deltas.
 */
function fixtureStreams(
  stream: "v2.session.events" | "v2.event.subscribe",
): Array<[string, CanonicalEvent[]]> {
  const directory = "opencode-1.18.33";
  const files = readdirSync(fixturePath(directory))
    .filter((file) => file.startsWith("api-") && file.endsWith(".transcript.ndjson"))
    .sort();
  return files.map((file) => {
    let state = initialApiState(SESSION);
    let seq = 0;
    const events: CanonicalEvent[] = [];
    for (const raw of recordedEvents(fixturePath(`${directory}/${file}`), stream)) {
      const result = normalizeApiEvent(state, parseApiEvent(raw));
      state = result.state;
      for (const event of result.events) {
        events.push(event.durable ? { ...event, seq: ++seq } : event);
      }
    }
    return [file, events];
  });
}

/**
 * The recorded 1.18.33 legacy (`/event`) fixtures, normalised by the serve-legacy backend's
 * code (deltas included), numbered, as this test's session.
 */
function legacyFixtureStreams(): Array<[string, CanonicalEvent[]]> {
  const directory = "opencode-1.18.33";
  const files = readdirSync(fixturePath(directory))
    .filter((file) => file.startsWith("legacy-") && file.endsWith(".transcript.ndjson"))
    .sort();
  return files.map((file) => {
    let seq = 0;
    const events = normalizeLegacyFrames(recordedEvents(fixturePath(`${directory}/${file}`))).map(
      (event): CanonicalEvent =>
        event.durable
          ? { ...event, sessionId: SESSION, seq: ++seq }
          : { ...event, sessionId: SESSION },
    );
    return [file, events];
  });
}

/** What a resumed reader must agree on: everything but the live-only fields. */
function durablePart(state: LiveConversation) {
  const { streaming: _streaming, usage: _usage, connection: _connection, ...rest } = state;
  return rest;
}

describe("reduceLive: streamed parts", () => {
  it("joins text deltas while the part runs; its end replaces them with the whole text", () => {
    const stream = new Stream()
      .add("turn.started", {}, "turn_1")
      .add("text.started", { partId: "prt_1" }, "turn_1")
      .add("text.delta", { partId: "prt_1", delta: "Hel" }, "turn_1")
      .add("text.delta", { partId: "prt_1", delta: "lo" }, "turn_1");
    const running = stream.state();
    expect(running.streaming).toEqual({ prt_1: "Hello" });
    expect(running.conversation.messages[0]).toMatchObject({
      parts: [{ type: "text", partId: "prt_1", text: "" }],
    });

    stream.add("text.ended", { partId: "prt_1", text: "Hello" }, "turn_1");
    const ended = stream.state();
    expect(ended.streaming).toEqual({});
    expect(ended.conversation.messages[0]).toMatchObject({
      parts: [{ type: "text", partId: "prt_1", text: "Hello" }],
    });
  });

  it("streams reasoning by part and a tool's input by call, until each ends", () => {
    const stream = new Stream()
      .add("turn.started", {}, "turn_1")
      .add("reasoning.started", { partId: "prt_r" }, "turn_1")
      .add("reasoning.delta", { partId: "prt_r", delta: "think" }, "turn_1")
      .add("tool.input.started", { callId: "call_1", tool: "bash" }, "turn_1")
      .add("tool.input.delta", { callId: "call_1", delta: '{"command":' }, "turn_1")
      .add("tool.input.delta", { callId: "call_1", delta: '"ls"}' }, "turn_1");
    expect(stream.state().streaming).toEqual({ prt_r: "think", call_1: '{"command":"ls"}' });

    stream
      .add("reasoning.ended", { partId: "prt_r", text: "think" }, "turn_1")
      .add("tool.called", { callId: "call_1", tool: "bash", input: { command: "ls" } }, "turn_1");
    expect(stream.state().streaming).toEqual({});
  });

  it("takes a catch-up delta as the part's whole text so far (a subscription that resumed mid-part)", () => {
    const stream = new Stream()
      .add("turn.started", {}, "turn_1")
      .add("text.started", { partId: "prt_1" }, "turn_1")
      .add("text.delta", { partId: "prt_1", delta: "Hel" }, "turn_1")
      .add("text.delta", { partId: "prt_1", delta: "lo, wor", catchUp: true }, "turn_1")
      .add("text.delta", { partId: "prt_1", delta: "ld" }, "turn_1")
      .add("tool.input.delta", { callId: "call_1", delta: "{}", catchUp: true }, "turn_1");
    expect(stream.state().streaming).toEqual({ prt_1: "lo, world", call_1: "{}" });
  });

  it("keeps what a part streamed when an interrupt ends the turn before the part", () => {
    const stream = new Stream()
      .add("turn.started", {}, "turn_1")
      .add("text.started", { partId: "prt_1" }, "turn_1")
      .add("text.delta", { partId: "prt_1", delta: "partial" }, "turn_1")
      .add("turn.ended", { outcome: "interrupted", reason: "user" }, "turn_1");
    const state = stream.state();
    expect(state.streaming).toEqual({ prt_1: "partial" });
    expect(state.running).toBeUndefined();
    expect(state.endReasons).toEqual({ turn_1: "user" });
  });
});

describe("reduceLive: the running turn, its usage and the connection", () => {
  it("says which turn runs, its usage so far, and forgets both when it ends", () => {
    const stream = new Stream()
      .add("turn.started", {}, "turn_1")
      .add("usage.updated", { usage: USAGE }, "turn_1");
    expect(stream.state()).toMatchObject({ running: "turn_1", usage: USAGE });

    stream.add("turn.ended", { outcome: "completed", usage: USAGE }, "turn_1");
    const ended = stream.state();
    expect(ended.running).toBeUndefined();
    expect(ended.usage).toBeUndefined();
    expect(ended.conversation.messages[0]).toMatchObject({ outcome: "completed", usage: USAGE });
  });

  it("follows the model: a step's, then one switched to", () => {
    const demo = { providerID: "demo", modelID: "demo-1" };
    const other = { providerID: "demo", modelID: "demo-2" };
    const stream = new Stream()
      .add("turn.started", {}, "turn_1")
      .add("step.started", { stepId: "s1", model: demo }, "turn_1");
    expect(stream.state().model).toEqual(demo);
    stream.add("model.switched", { model: other });
    expect(stream.state().model).toEqual(other);
  });

  it("a continuation in a new OpenCode session shows in its conversation, after the messages before it", () => {
    const stream = new Stream()
      .add("input.admitted", { inputId: "in_1", text: "hi", delivery: "queue" }, "turn_1")
      .add("turn.started", { inputId: "in_1" }, "turn_1")
      .add("turn.ended", { outcome: "completed", text: "hello" }, "turn_1")
      .add("session.rehydrated", { previousUpstreamId: "ses_old", upstreamId: "ses_new" });
    expect(stream.state().conversation.rehydrations).toEqual([
      { previousUpstreamId: "ses_old", upstreamId: "ses_new", afterMessages: 2 },
    ]);
  });

  it("an imported session's conversation names the OpenCode session its first messages came from", () => {
    const stream = new Stream()
      .add("input.admitted", { inputId: "msg_1", text: "hi", delivery: "queue" }, "turn_1")
      .add("turn.started", { inputId: "msg_1" }, "turn_1")
      .add("turn.ended", { outcome: "completed", text: "hello" }, "turn_1")
      .add("session.imported", { upstreamId: "ses_mine", messages: 2 });
    expect(stream.state().conversation.imported).toEqual({
      upstreamId: "ses_mine",
      afterMessages: 2,
    });
  });

  it("follows the agent: a step's, then one switched to", () => {
    const stream = new Stream()
      .add("turn.started", {}, "turn_1")
      .add("step.started", { stepId: "s1", agent: "build" }, "turn_1");
    expect(stream.state().agent).toBe("build");
    stream.add("turn.ended", { outcome: "completed" }, "turn_1").add("agent.switched", {
      agent: "plan",
    });
    expect(stream.state().agent).toBe("plan");
    // A step that names no agent leaves it.
    stream.add("turn.started", {}, "turn_2").add("step.started", { stepId: "s2" }, "turn_2");
    expect(stream.state().agent).toBe("plan");
  });

  it("keeps the latest todo list and the latest turn's changed files", () => {
    const todos = [{ content: "Write the tests", status: "in_progress", priority: "high" }];
    const files = [{ path: "a.txt", status: "added" as const, additions: 2, deletions: 0 }];
    const stream = new Stream()
      .add("turn.started", {}, "turn_1")
      .add("todo.updated", { todos }, "turn_1")
      .add("turn.ended", { outcome: "completed" }, "turn_1")
      .add("files.changed", { files, moreFiles: 3 }, "turn_1");
    expect(stream.state()).toMatchObject({
      todos,
      filesChanged: { turnId: "turn_1", files, moreFiles: 3 },
      turnFiles: { turn_1: { files, moreFiles: 3 } },
    });
    // Each turn keeps its own files; the latest is the one of the turn that changed any last.
    const later = [{ path: "b.txt", status: "modified" as const, additions: 1, deletions: 1 }];
    stream.add("turn.started", {}, "turn_2").add("turn.ended", { outcome: "completed" }, "turn_2");
    stream.add("files.changed", { files: later }, "turn_2");
    expect(stream.state()).toMatchObject({
      filesChanged: { turnId: "turn_2", files: later },
      turnFiles: { turn_1: { files, moreFiles: 3 }, turn_2: { files: later } },
    });
    stream.add("todo.updated", { todos: [] });
    expect(stream.state().todos).toEqual([]);
  });

  it("sums what the session's steps spent and keeps the latest step's context tokens", () => {
    const later = {
      tokens: { input: 100, output: 20, reasoning: 3, cacheRead: 50, cacheWrite: 7 },
      cost: 0.5,
    };
    const stream = new Stream()
      .add("turn.started", {}, "turn_1")
      .add("step.ended", { stepId: "s1", finish: "tool-calls", usage: USAGE }, "turn_1")
      .add("step.failed", { stepId: "s2", error: { kind: "provider", message: "no" } }, "turn_1")
      .add("step.ended", { stepId: "s3", finish: "stop", usage: later }, "turn_1");
    expect(stream.state()).toMatchObject({
      spent: {
        tokens: { input: 110, output: 25, reasoning: 3, cacheRead: 50, cacheWrite: 7 },
        cost: 0.5,
      },
      contextTokens: 180,
    });
    expect(emptyLiveConversation(SESSION).spent).toBeUndefined();
  });

  it("says when the running turn started, from its turn.started, until it ends", () => {
    const stream = new Stream().add("turn.started", {}, "turn_1");
    const started = stream.events[0]?.at;
    stream.add("step.started", { stepId: "s1" }, "turn_1");
    expect(stream.state().runningSince).toBe(started);
    stream.add("turn.ended", { outcome: "completed" }, "turn_1");
    expect(stream.state().runningSince).toBeUndefined();
  });

  it("marks each switch to another model where the conversation stood, from the model before", () => {
    const demo = { providerID: "demo", modelID: "demo-1" };
    const other = { providerID: "demo", modelID: "demo-2" };
    const stream = new Stream()
      .add("model.switched", { model: demo })
      .add("input.admitted", { inputId: "in_1", text: "hi", delivery: "queue" }, "turn_1")
      .add("turn.started", { inputId: "in_1" }, "turn_1")
      .add("step.started", { stepId: "s1", model: demo }, "turn_1")
      .add("turn.ended", { outcome: "completed" }, "turn_1")
      // The same model again is no switch.
      .add("model.switched", { model: demo })
      .add("model.switched", { model: other });
    const at = (index: number) => stream.events[index]?.at;
    expect(stream.state().modelSwitches).toEqual([
      { to: demo, afterInputs: 0, at: at(0) },
      { from: demo, to: other, afterInputs: 1, at: at(6) },
    ]);
    // The input reverted, the switch after it stays, at the conversation's (new) end.
    stream.add("session.reverted", { inputId: "in_1" });
    expect(stream.state().modelSwitches.map((mark) => mark.afterInputs)).toEqual([0, 0]);
  });

  it("takes the session's connection from connection.changed", () => {
    const lost = { state: "reconnecting" as const, since: 5, attempt: 2, reason: "refused" };
    const stream = new Stream().add("connection.changed", lost);
    expect(stream.state().connection).toEqual(lost);
    stream.add("connection.changed", { state: "connected", since: 9, attempt: 0 });
    expect(stream.state().connection.state).toBe("connected");
  });
});

describe("reduceLive: queued inputs", () => {
  it("lists an input from its admission until it is delivered, cancelled or starts a turn", () => {
    const stream = new Stream()
      .add("input.admitted", { inputId: "in_1", text: "first", delivery: "queue" })
      .add("turn.started", { inputId: "in_1" }, "turn_1")
      .add("input.admitted", { inputId: "in_2", text: "steer", delivery: "steer" }, "turn_1")
      .add("input.admitted", {
        inputId: "in_3",
        text: "next",
        delivery: "queue",
        files: ["a.png"],
      })
      .add("input.admitted", { inputId: "in_4", text: "dropped", delivery: "queue" });
    expect(stream.state().queued.map((input) => input.inputId)).toEqual(["in_2", "in_3", "in_4"]);
    expect(stream.state().queued[1]).toMatchObject({ text: "next", files: ["a.png"] });

    stream
      .add("input.delivered", { inputId: "in_2" }, "turn_1")
      .add("input.cancelled", { inputId: "in_4", reason: "interrupted" });
    expect(stream.state().queued.map((input) => input.inputId)).toEqual(["in_3"]);

    stream
      .add("turn.ended", { outcome: "completed" }, "turn_1")
      .add("turn.started", { inputId: "in_3" }, "turn_in_3");
    const state = stream.state();
    expect(state.queued).toEqual([]);
    expect(state.running).toBe("turn_in_3");
  });
});

describe("reduceLive: an input taken back from the queue", () => {
  it("ends its own turn (cancelled) and leaves the running one running", () => {
    const stream = new Stream()
      .add("turn.started", {}, "turn_1")
      .add("input.admitted", { inputId: "in_2", text: "later", delivery: "queue" })
      .add("input.cancelled", { inputId: "in_2", reason: "cancelled" })
      .add("turn.ended", { outcome: "interrupted", reason: "cancelled" }, "turn_in_2");
    const state = stream.state();
    expect(state.queued).toEqual([]);
    expect(state.running).toBe("turn_1");
    expect(state.endReasons).toEqual({ turn_in_2: "cancelled" });
  });
});

describe("reduceLive: asks", () => {
  it("lists a permission and a question while they wait and drops each once answered", () => {
    const stream = new Stream()
      .add("turn.started", {}, "turn_1")
      .add(
        "permission.asked",
        { requestId: "per_1", permission: "edit", patterns: ["a.ts"] },
        "turn_1",
      )
      .add("question.asked", { requestId: "que_1", questions: [] }, "turn_1");
    expect(stream.state().pendingAsks).toEqual([
      { kind: "permission", requestId: "per_1", turnId: "turn_1" },
      { kind: "question", requestId: "que_1", turnId: "turn_1" },
    ]);

    stream.add("permission.replied", { requestId: "per_1", reply: "once" }, "turn_1");
    expect(stream.state().pendingAsks.map((ask) => ask.requestId)).toEqual(["que_1"]);
    stream.add("question.rejected", { requestId: "que_1" }, "turn_1");
    expect(stream.state().pendingAsks).toEqual([]);
  });

  it("drops an ask still waiting when its turn ends (it can no longer be answered)", () => {
    const stream = new Stream()
      .add("turn.started", {}, "turn_1")
      .add("question.asked", { requestId: "que_1", questions: [] }, "turn_1")
      .add("turn.ended", { outcome: "interrupted" }, "turn_1");
    expect(stream.state().pendingAsks).toEqual([]);
  });
});

describe("reduceLive: resuming", () => {
  it("ignores durable events already folded (an overlapping resume doubles nothing)", () => {
    const stream = new Stream()
      .add("input.admitted", { inputId: "in_1", text: "hi", delivery: "queue" })
      .add("turn.started", { inputId: "in_1" }, "turn_1")
      .add("text.started", { partId: "prt_1" }, "turn_1")
      .add("text.ended", { partId: "prt_1", text: "hello" }, "turn_1");
    const once = stream.state();
    const twice = liveConversationOf(SESSION, stream.events, once);
    expect(twice).toBe(once);
  });

  it("ignores another session's events", () => {
    const state = emptyLiveConversation(SESSION);
    const other = { ...new Stream().add("turn.started", {}, "t").events[0], sessionId: "ses_x" };
    expect(reduceLive(state, other as CanonicalEvent)).toBe(state);
  });
});

describe("reduceLive over the recorded 1.18.33 fixtures (/api and legacy)", () => {
  const streams = [...fixtureStreams("v2.session.events"), ...legacyFixtureStreams()];

  it("has the fixtures", () => {
    expect(streams.length).toBeGreaterThan(20);
  });

  it.each(streams)(
    "%s: its conversation is the library's, every turn ended, nothing left over",
    (_, events) => {
      const state = liveConversationOf(SESSION, events);
      expect(state.conversation).toEqual(conversationOf(events, SESSION));
      expect(state.running).toBeUndefined();
      expect(state.queued).toEqual([]);
      expect(state.pendingAsks).toEqual([]);
      expect(state.streaming).toEqual({});
      expect(JSON.parse(JSON.stringify(state))).toEqual(state);
    },
  );

  it.each(streams)(
    "%s: resumed from the state saved at any seq, it equals one built from the start",
    (_, events) => {
      const durable = events.filter((event) => event.durable);
      const whole = liveConversationOf(SESSION, durable);
      expect(durablePart(liveConversationOf(SESSION, events))).toEqual(durablePart(whole));
      for (let cut = 0; cut <= durable.length; cut++) {
        const saved = JSON.parse(
          JSON.stringify(liveConversationOf(SESSION, durable.slice(0, cut))),
        ) as LiveConversation;
        // The sidecar resumes after the saved seq; replaying everything must come to the same.
        expect(liveConversationOf(SESSION, durable.slice(cut), saved)).toEqual(whole);
        expect(liveConversationOf(SESSION, durable, saved)).toEqual(whole);
      }
    },
  );

  it.each(streams)(
    "%s: its snapshot (GET /v1/sessions/:id/live) passes the schema through JSON and is the state again; the sidecar's kept state fed later events is the fold from the start",
    (_, events) => {
      const durable = events.filter((event) => event.durable);
      const whole = liveConversationOf(SESSION, durable);
      const sent = JSON.parse(JSON.stringify(liveSnapshotOf(whole)));
      expect(liveFromSnapshot(LiveSnapshotSchema.parse(sent))).toEqual(
        liveConversationOf(SESSION, durable),
      );
      const snapshots = new LiveSnapshots();
      const half = Math.floor(durable.length / 2);
      expect(snapshots.of(SESSION, durable.slice(0, half))).toEqual(
        liveSnapshotOf(liveConversationOf(SESSION, durable.slice(0, half))),
      );
      expect(snapshots.of(SESSION, durable)).toEqual(liveSnapshotOf(whole));
    },
  );

  it("joins the live stream's text and tool input deltas to each part's ended value", () => {
    let checked = 0;
    for (const [, events] of [...fixtureStreams("v2.event.subscribe"), ...legacyFixtureStreams()]) {
      let state = emptyLiveConversation(SESSION);
      for (const event of events) {
        if (event.type === "text.ended" || event.type === "tool.input.ended") {
          const id = event.type === "text.ended" ? event.data.partId : event.data.callId;
          const value = event.type === "text.ended" ? event.data.text : event.data.input;
          if (state.streaming[id] !== undefined) {
            expect(state.streaming[id]).toBe(value);
            checked++;
          }
        }
        state = reduceLive(state, event);
      }
      expect(state.streaming).toEqual({});
    }
    expect(checked).toBeGreaterThan(10);
  });
});
