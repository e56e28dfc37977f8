import type { AssistantMessage, Message, UserMessage } from "opencode-bridge/client";
import { describe, expect, it } from "vitest";
import { fitStart, turnStarts, windowStart } from "./render-window.js";

function user(turnId: string | undefined, inputId = `in_${turnId}`): UserMessage {
  return { role: "user", inputId, text: inputId, ...(turnId === undefined ? {} : { turnId }) };
}

/** An assistant message of `parts` text parts. */
function assistant(turnId: string, parts: number): AssistantMessage {
  return {
    role: "assistant",
    turnId,
    parts: Array.from({ length: parts }, (_, index) => ({
      type: "text" as const,
      partId: `${turnId}_p${index}`,
      text: "x",
    })),
    outcome: "completed",
  };
}

/** Turns of a user message and an answer of `parts[i]` parts each (weight 1 + parts[i]). */
function turns(...parts: number[]): Message[] {
  return parts.flatMap((count, index) => [user(`t${index}`), assistant(`t${index}`, count)]);
}

describe("windowStart", () => {
  it("is the whole conversation while it weighs no more than the budget", () => {
    // 3 turns of weight 1 + 4 = 5: 15 in all.
    expect(windowStart(turns(4, 4, 4), 6, 15)).toBe(0);
    expect(windowStart(turns(4, 4, 4), 6, 100)).toBe(0);
    expect(windowStart([], 0, 10)).toBe(0);
  });

  it("starts at the earliest whole turn within the budget", () => {
    expect(windowStart(turns(4, 4, 4), 6, 14)).toBe(2);
    expect(windowStart(turns(4, 4, 4), 6, 10)).toBe(2);
    expect(windowStart(turns(4, 4, 4), 6, 9)).toBe(4);
  });

  it("draws the last turn however much it weighs", () => {
    expect(windowStart(turns(4, 4, 60), 6, 10)).toBe(4);
    expect(windowStart(turns(4, 4, 60), 6, 0)).toBe(4);
  });

  it("grows backwards by chunks, from the current start", () => {
    // Six turns of weight 3: two turns per chunk of 6.
    const messages = turns(2, 2, 2, 2, 2, 2);
    const first = windowStart(messages, messages.length, 6);
    expect(first).toBe(8);
    const second = windowStart(messages, first, 6);
    expect(second).toBe(4);
    expect(windowStart(messages, second, 6)).toBe(0);
    expect(windowStart(messages, 0, 6)).toBe(0);
  });

  it("never starts inside a turn that took a steer", () => {
    // t1 was steered: its answer before the steer, the steer, its answer after it.
    const messages: Message[] = [
      ...turns(1),
      user("t1"),
      assistant("t1", 1),
      user("t1", "in_steer"),
      assistant("t1", 1),
    ];
    expect(turnStarts(messages)).toEqual([0, 2]);
    expect(windowStart(messages, messages.length, 2)).toBe(2);
  });

  it("reaches back past what is not drawn to the last turn that is", () => {
    // A queued input at the end: its user message is drawn by the composer, not here.
    const messages: Message[] = [...turns(1, 50), user("t_q", "in_q")];
    const weigh = (message: Message) =>
      message.role === "user" && message.inputId === "in_q" ? 0 : 1;
    expect(windowStart(messages, messages.length, 1, weigh)).toBe(2);
  });
});

describe("fitStart", () => {
  it("keeps a start on a turn, and snaps one that no longer is back to its turn", () => {
    const messages = turns(1, 1, 1);
    expect(fitStart(messages, 2)).toBe(2);
    expect(fitStart(messages, 3)).toBe(2);
  });

  it("comes back to the last turn when an undo took back the turns it began at", () => {
    expect(fitStart(turns(1, 1), 4)).toBe(2);
    expect(fitStart(turns(1, 1), 99)).toBe(2);
  });
});
