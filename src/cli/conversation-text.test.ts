/** How `ocb show` prints a conversation: one line per tool call, ask and subagent. */
import { describe, expect, it } from "vitest";
import type { Conversation } from "../wire/conversation-types.js";
import { conversationText, inputSummary } from "./conversation-text.js";

const conversation: Conversation = {
  sessionId: "ses_1",
  lastSeq: 20,
  messages: [
    { role: "user", inputId: "in_1", turnId: "t1", text: "fix it\nplease", files: ["/w/a.png"] },
    {
      role: "assistant",
      turnId: "t1",
      outcome: "interrupted",
      parts: [
        { type: "reasoning", partId: "r1", text: "looking" },
        {
          type: "tool",
          callId: "c1",
          tool: "bash",
          input: { command: "ls" },
          state: "succeeded",
          output: "\na.png\nb.txt",
        },
        {
          type: "tool",
          callId: "c2",
          tool: "write",
          input: { path: "x", content: "hi" },
          state: "failed",
          error: { kind: "tool", message: "denied\nmore" },
        },
        { type: "tool", callId: "c3", tool: "read", input: {}, state: "running" },
        {
          type: "permission",
          requestId: "p1",
          permission: "edit",
          patterns: ["x"],
          reply: "reject",
        },
        {
          type: "question",
          requestId: "q1",
          questions: [{ question: "Which?" }, { question: "Why?" }],
          state: "replied",
          answers: [["A"], ["B"]],
        },
        {
          type: "subagent",
          callId: "c4",
          childSessionId: "ses_2",
          agent: "explore",
          state: "ended",
          result: "found it",
        },
        { type: "text", partId: "x1", text: "" },
        { type: "text", partId: "x2", text: "Done." },
      ],
    },
    { role: "user", inputId: "in_2", text: "and then?", cancelled: "interrupted" },
  ],
};

describe("conversationText", () => {
  it("prints each part on its own line, and how a turn that did not complete ended", () => {
    expect(conversationText(conversation, { color: false })).toBe(
      [
        "you: fix it",
        "     please",
        "     + /w/a.png",
        "",
        "  (thinking) looking",
        "  → bash(ls) ✓ a.png",
        '  → write(path: "x", content: "hi") ✗ denied',
        "  → read() …",
        "  ? permission edit x → reject",
        "  ? question Which? (+1 more) → A; B",
        "  ⇢ subagent explore ✓ found it",
        "  Done.",
        "  — interrupted",
        "",
        "you: and then?",
        "     (not delivered: interrupted)",
        "",
      ].join("\n"),
    );
  });

  it("colours only when asked to", () => {
    expect(conversationText(conversation, { color: true })).toContain("\x1b[32m✓\x1b[0m");
    expect(conversationText(conversation, { color: false })).not.toContain("\x1b[");
  });

  it("says when there is nothing to show, and keeps tool inputs short", () => {
    expect(conversationText({ sessionId: "s", lastSeq: 0, messages: [] }, { color: false })).toBe(
      "(no messages yet)\n",
    );
    expect(inputSummary({ command: "x".repeat(200) })).toHaveLength(80);
  });
});
