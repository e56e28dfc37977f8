import type { AssistantMessage, Part } from "opencode-bridge/client";
import { describe, expect, it } from "vitest";
import { commandOf } from "./tool-command.js";
import { elapsedText, workingActivity } from "./working-activity.js";

const turn = (...parts: Part[]): AssistantMessage => ({ role: "assistant", turnId: "t1", parts });
const bash = (input: Record<string, unknown>): Part => ({
  type: "tool",
  callId: "c1",
  tool: "bash",
  input,
  state: "running",
});

describe("workingActivity", () => {
  it("says what the running turn does: thinking, writing, preparing or running a tool, waiting", () => {
    expect(workingActivity(turn(), {}, [])).toBe("Thinking");
    const text: Part = { type: "text", partId: "p1", text: "" };
    expect(workingActivity(turn(text), { p1: "Hel" }, [])).toBe("Writing");
    // Ended text, the next step not begun: the model is at work again.
    expect(workingActivity(turn({ ...text, text: "Hello" }), {}, [])).toBe("Thinking");
    expect(workingActivity(turn(bash({})), { c1: '{"comm' }, [])).toBe("Preparing bash");
    expect(workingActivity(turn(bash({ command: "ls" })), {}, [])).toBe("Running bash");
    const ask = { kind: "permission" as const, requestId: "r1", turnId: "t1" };
    expect(workingActivity(turn(bash({ command: "ls" })), {}, [ask])).toBe(
      "Waiting for your answer",
    );
  });
});

describe("elapsedText", () => {
  it("counts seconds, then minutes, then hours; never below zero (a clock behind the server's)", () => {
    expect(elapsedText(-5_000)).toBe("0s");
    expect(elapsedText(8_900)).toBe("8s");
    expect(elapsedText(65_000)).toBe("1m 05s");
    expect(elapsedText(3_720_000)).toBe("1h 02m");
  });
});

describe("commandOf", () => {
  it("is a bash call's command, and nothing for other tools or an input not parsed yet", () => {
    expect(commandOf("bash", { command: "echo hi", description: "greet" })).toBe("echo hi");
    expect(commandOf("bash", {})).toBeUndefined();
    expect(commandOf("read", { command: "x" })).toBeUndefined();
  });
});
