import { describe, expect, it } from "vitest";
import { NumberedEvents } from "../../test/support/numbered-events.js";
import {
  earlierConversation,
  earlierMessages,
  pendingEarlierConversation,
} from "./earlier-conversation.js";

/** A session's events: each turn an input, a tool call and the assistant's text. */
function session(...turns: string[]): NumberedEvents {
  const out = new NumberedEvents("ses_x");
  for (const name of turns) turn(out, name);
  return out;
}

function turn(out: NumberedEvents, name: string): void {
  const turnId = `turn_${name}`;
  out.add(
    "input.admitted",
    { inputId: `in_${name}`, text: `ask ${name}`, delivery: "queue" },
    turnId,
  );
  out.add("turn.started", { inputId: `in_${name}` }, turnId);
  out.add("tool.called", { callId: `c_${name}`, tool: "read", input: {} }, turnId);
  out.add("text.ended", { partId: `p_${name}`, text: `answer ${name}` }, turnId);
  out.add("turn.ended", { outcome: "completed", text: `answer ${name}` }, turnId);
}

describe("earlierMessages", () => {
  it("says the inputs, the tool calls and the texts, in order", () => {
    expect(earlierMessages(session("1", "2").events)).toEqual([
      { inputId: "in_1", role: "User", text: "ask 1" },
      { inputId: "in_1", role: "Assistant", text: "(ran the read tool)" },
      { inputId: "in_1", role: "Assistant", text: "answer 1" },
      { inputId: "in_2", role: "User", text: "ask 2" },
      { inputId: "in_2", role: "Assistant", text: "(ran the read tool)" },
      { inputId: "in_2", role: "Assistant", text: "answer 2" },
    ]);
  });

  it("leaves out what an undo took out, and brings back what a redo restored", () => {
    const out = session("1", "2").add("session.reverted", { inputId: "in_2" });
    expect(earlierMessages(out.events).map((one) => one.text)).toEqual([
      "ask 1",
      "(ran the read tool)",
      "answer 1",
    ]);
    out.add("session.unreverted", { inputId: "in_2" });
    expect(earlierMessages(out.events)).toHaveLength(6);
  });

  it("after the bridge's compaction, its summary stands for everything before it", () => {
    const out = session("1", "2").add("session.compacted", { summary: "we did 1 and 2" });
    turn(out, "3");
    expect(earlierMessages(out.events).map((one) => one.text)).toEqual([
      "(a summary of the conversation before) we did 1 and 2",
      "ask 3",
      "(ran the read tool)",
      "answer 3",
    ]);
    // OpenCode's own compaction (serve-legacy) keeps its summary upstream: nothing changes.
    expect(earlierMessages(session("1").add("session.compacted", {}).events)).toHaveLength(3);
  });
});

describe("earlierConversation", () => {
  it("is an attached markdown text of the messages, or nothing for an empty session", () => {
    expect(earlierConversation([])).toBeUndefined();
    const text = earlierConversation(session("1").events);
    expect(text).toMatchObject({ name: "earlier-conversation.md", mime: "text/markdown" });
    expect(text?.text).toContain(
      "User: ask 1\n\nAssistant: (ran the read tool)\n\nAssistant: answer 1",
    );
  });

  it("keeps the latest messages within its bound and says how many it left out", () => {
    const text = earlierConversation(session("1", "2").events, 70)?.text ?? "";
    expect(text).toContain("(3 earlier messages left out)");
    expect(text).toContain("User: ask 2");
    expect(text).not.toContain("ask 1");
    // One message longer than the bound: its end.
    const long = new NumberedEvents("ses_x").add("input.admitted", {
      inputId: "in_1",
      text: `start ${"x".repeat(100)} end`,
      delivery: "queue",
    });
    const cut = earlierConversation(long.events, 20)?.text ?? "";
    expect(cut).toContain(`…${"x".repeat(16)} end`);
    expect(cut).not.toContain("start");
  });
});

describe("pendingEarlierConversation", () => {
  it("is the conversation before the latest fork or continuation, until an input follows it", () => {
    expect(pendingEarlierConversation(session("1").events)).toBeUndefined();
    const out = session("1").add("session.rehydrated", {
      previousUpstreamId: "ses_x",
      upstreamId: "ses_y",
    });
    expect(pendingEarlierConversation(out.events)?.text).toContain("answer 1");
    turn(out, "2");
    expect(pendingEarlierConversation(out.events)).toBeUndefined();
    out.add("session.forked", {
      from: { sessionId: "ses_o", inputId: "in_9" },
      upstreamId: "ses_z",
    });
    const again = pendingEarlierConversation(out.events)?.text ?? "";
    expect(again).toContain("answer 2");
    expect(again).toContain("answer 1");
  });

  it("is an imported session's history until its first input of the bridge", () => {
    const out = session("1").add("session.imported", { upstreamId: "ses_1", messages: 2 });
    expect(pendingEarlierConversation(out.events)?.text).toContain("answer 1");
    turn(out, "2");
    expect(pendingEarlierConversation(out.events)).toBeUndefined();
  });
});
