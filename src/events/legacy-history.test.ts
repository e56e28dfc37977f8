import { describe, expect, it } from "vitest";
import { readNdjson } from "../../test/support/fixture-files.js";
import { MessageWithParts } from "../opencode-protocol/legacy/session.js";
import { earlierMessages } from "./earlier-conversation.js";
import { legacyHistory } from "./legacy-history.js";

const SESSION = "ses_dc6b51563fferCMdV2onmN5IUt";
const messages = readNdjson("opencode-1.18.33/run-session.messages.ndjson").map((raw) =>
  MessageWithParts.parse(raw),
);

describe("legacyHistory (a session `opencode run` made, recorded on 1.18.33)", () => {
  const events = legacyHistory(SESSION, messages);

  it("makes one turn per exchange: the input, its steps, texts and tool, and the end", () => {
    expect(events.map((event) => event.type)).toEqual([
      "input.admitted",
      "turn.started",
      "input.delivered",
      "step.started",
      "text.started",
      "text.ended",
      "step.ended",
      "turn.ended",
      "input.admitted",
      "turn.started",
      "input.delivered",
      "step.started",
      "tool.input.started",
      "tool.input.ended",
      "tool.called",
      "tool.succeeded",
      "step.ended",
      "step.started",
      "text.started",
      "text.ended",
      "step.ended",
      "turn.ended",
    ]);
    const [first, second] = messages.filter((message) => message.info.role === "user");
    const inputs = events.filter((event) => event.type === "input.admitted");
    expect(inputs.map((event) => event.data.inputId)).toEqual([first?.info.id, second?.info.id]);
    const ends = events.filter((event) => event.type === "turn.ended");
    expect(ends.map((event) => event.data.outcome)).toEqual(["completed", "completed"]);
    expect(ends.map((event) => event.data.text)).toEqual([
      'echo: "first question ALPHA"',
      "tool bash returned: hi\n",
    ]);
    expect(events.every((event) => event.sessionId === SESSION)).toBe(true);
  });

  it("is the conversation the model saw, for a primer", () => {
    expect(earlierMessages(events).map((said) => `${said.role}: ${said.text}`)).toEqual([
      'User: "first question ALPHA"',
      'Assistant: echo: "first question ALPHA"',
      expect.stringContaining("second BRAVO"),
      "Assistant: (ran the bash tool)",
      "Assistant: tool bash returned: hi\n",
    ]);
  });

  it("gives the same ids when read again, and every id once", () => {
    const ids = events.map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(legacyHistory(SESSION, messages).map((event) => event.id)).toEqual(ids);
  });

  it("ends an exchange whose reply failed as failed, and one aborted as interrupted", () => {
    const [user, reply] = messages;
    if (user === undefined || reply === undefined || reply.info.role !== "assistant") {
      throw new Error("the fixture starts with an exchange");
    }
    const failed = (error: unknown) =>
      legacyHistory(SESSION, [user, { ...reply, info: { ...reply.info, error } }]).find(
        (event) => event.type === "turn.ended",
      )?.data;
    expect(
      failed({
        name: "APIError",
        data: { message: "bad request", statusCode: 400, isRetryable: false },
      }),
    ).toMatchObject({ outcome: "failed" });
    expect(failed({ name: "MessageAbortedError", data: { message: "aborted" } })).toMatchObject({
      outcome: "interrupted",
    });
  });

  it("ends an exchange still running when read where it was: its text so far unfinished, the turn completed", () => {
    const [user, reply] = messages;
    if (user === undefined || reply === undefined || reply.info.role !== "assistant") {
      throw new Error("the fixture starts with an exchange");
    }
    const { completed: _, ...running } = reply.info.time;
    const cut = {
      info: { ...reply.info, time: running },
      // Its step has started and its text is being written: no end time, no step-finish.
      parts: reply.parts
        .filter((part) => part.type !== "step-finish")
        .map((part) => (part.type === "text" ? { ...part, time: { start: 1 } } : part)),
    };
    const events = legacyHistory(SESSION, [user, cut]);
    expect(events.map((event) => event.type)).toEqual([
      "input.admitted",
      "turn.started",
      "input.delivered",
      "step.started",
      "text.started",
      "turn.ended",
    ]);
    expect(events.at(-1)?.data).toMatchObject({ outcome: "completed" });
  });

  it("has nothing to say of a session without messages", () => {
    expect(legacyHistory(SESSION, [])).toEqual([]);
  });
});
