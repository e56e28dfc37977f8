import { describe, expect, it } from "vitest";
import type { ConversationView } from "../client/index.js";
import { inputRows, inputTable } from "./input-list.js";

const CONVERSATION = {
  sessionId: "ses_1",
  lastSeq: 9,
  messages: [
    { role: "user", inputId: "msg_1", turnId: "turn_1", text: "write a.txt\nplease" },
    { role: "assistant", turnId: "turn_1", parts: [], outcome: "completed" },
    { role: "user", inputId: "msg_2", text: "queued \u001b[31mred\u001b[0m" },
  ],
  undone: {
    inputId: "msg_3",
    files: [],
    messages: [
      { role: "user", inputId: "msg_3", turnId: "turn_3", text: "x".repeat(80) },
      { role: "assistant", turnId: "turn_3", parts: [], outcome: "completed" },
    ],
  },
} as unknown as ConversationView;

describe("a session's inputs", () => {
  it("are its user messages in order, then those an undo set aside, marked", () => {
    expect(inputRows(CONVERSATION)).toEqual([
      { inputId: "msg_1", turnId: "turn_1", text: "write a.txt\nplease" },
      { inputId: "msg_2", text: "queued \u001b[31mred\u001b[0m" },
      { inputId: "msg_3", turnId: "turn_3", text: "x".repeat(80), undone: true },
    ]);
  });

  it("print as a table: input, turn, the text's first line made safe and cut", () => {
    expect(inputTable(inputRows(CONVERSATION))).toEqual([
      "INPUT  TURN    TEXT",
      "msg_1  turn_1  write a.txt",
      "msg_2  -       queued red",
      `msg_3  turn_3  (undone) ${"x".repeat(59)}…`,
    ]);
  });
});
