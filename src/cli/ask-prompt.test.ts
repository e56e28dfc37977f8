/** The terminal prompt for asks, over in-memory streams. */
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { AskPrompt, colorDiff, type PermissionAsk, type QuestionAsk } from "./ask-prompt.js";

const DIFF = "--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-old\n+new\n context\n";

const WRITE: PermissionAsk = {
  requestId: "per_1",
  permission: "edit",
  patterns: ["/project/a.txt"],
  diff: DIFF,
};

const PICK: QuestionAsk = {
  requestId: "que_1",
  questions: [
    {
      question: "Pick a colour",
      header: "Colour",
      options: [
        { label: "red", description: "warm" },
        { label: "blue", description: "cold" },
        { label: "green", description: "" },
      ],
    },
  ],
};

const GREEN = "\x1b[32m";
const RED = "\x1b[31m";
const CYAN = "\x1b[36m";
const RESET = "\x1b[0m";

let prompts: AskPrompt[] = [];
afterEach(() => {
  for (const prompt of prompts) prompt.close();
  prompts = [];
});

/** A prompt whose input is `typed` (written up front) and whose output is collected. */
function promptWith(typed: string, color = false) {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = "";
  output.on("data", (chunk: Buffer) => {
    written += chunk.toString();
  });
  const prompt = new AskPrompt({ input, output, color });
  prompts.push(prompt);
  input.write(typed);
  return { prompt, input, output: () => written };
}

describe("AskPrompt.permission", () => {
  it.each([
    ["y\n", "once"],
    ["yes\n", "once"],
    ["a\n", "always"],
    ["Always\n", "always"],
    ["n\n", "reject"],
    ["no\n", "reject"],
    ["\n", "reject"],
  ] as const)("%j → %s", async (typed, reply) => {
    const { prompt, output } = promptWith(typed);
    await expect(prompt.permission(WRITE)).resolves.toBe(reply);
    expect(output()).toContain("Allow? [y] once  [a] always  [n] no: ");
  });

  it("asks again after an answer it does not know", async () => {
    const { prompt, output } = promptWith("maybe\ny\n");
    await expect(prompt.permission(WRITE)).resolves.toBe("once");
    expect(output().match(/Allow\?/g)).toHaveLength(2);
    expect(output()).toContain("Please answer y, a or n.");
  });

  it("waits for a line typed after the prompt", async () => {
    const { prompt, input } = promptWith("");
    const reply = prompt.permission(WRITE);
    setTimeout(() => input.write("a\n"), 10);
    await expect(reply).resolves.toBe("always");
  });

  it("rejects at the end of input", async () => {
    const { prompt, input } = promptWith("");
    input.end();
    await expect(prompt.permission(WRITE)).resolves.toBe("reject");
  });

  it("shows the permission, its patterns and the plain diff without colour", async () => {
    const { prompt, output } = promptWith("n\n");
    await prompt.permission(WRITE);
    expect(output()).toContain("Permission asked: edit\n  /project/a.txt\n");
    expect(output()).toContain("@@ -1 +1 @@\n-old\n+new\n context\n");
    expect(output()).not.toContain("\x1b[");
  });

  it("colours the diff: added green, removed red, hunks cyan", async () => {
    const { prompt, output } = promptWith("n\n", true);
    await prompt.permission(WRITE);
    expect(output()).toContain(`${GREEN}+new${RESET}`);
    expect(output()).toContain(`${RED}-old${RESET}`);
    expect(output()).toContain(`${CYAN}@@ -1 +1 @@${RESET}`);
    expect(output()).toContain("\n context\n");
  });

  it("stops waiting when aborted", async () => {
    const { prompt } = promptWith("");
    const controller = new AbortController();
    const reply = prompt.permission(WRITE, controller.signal);
    controller.abort(new Error("the turn ended"));
    await expect(reply).rejects.toThrow("the turn ended");
  });
});

describe("colorDiff", () => {
  it("leaves the diff alone without colour", () => {
    expect(colorDiff(DIFF, false)).toBe(DIFF);
  });
});

describe("AskPrompt.question", () => {
  it("answers with the label of the number chosen", async () => {
    const { prompt, output } = promptWith("2\n");
    await expect(prompt.question(PICK)).resolves.toEqual({
      reply: "answer",
      answers: [["blue"]],
    });
    expect(output()).toContain("Question: Colour: Pick a colour\n");
    expect(output()).toContain("  1. red — warm\n  2. blue — cold\n  3. green\n");
  });

  it("takes numbers separated by commas when several may be chosen", async () => {
    const { prompt } = promptWith("3, 1\n");
    const multiple = { ...PICK, questions: [{ ...(PICK.questions[0] as object), multiple: true }] };
    await expect(prompt.question(multiple)).resolves.toEqual({
      reply: "answer",
      answers: [["green", "red"]],
    });
  });

  it("asks again for a list when only one may be chosen, or a number out of range", async () => {
    const { prompt, output } = promptWith("1,2\n7\nred\n1\n");
    await expect(prompt.question(PICK)).resolves.toEqual({ reply: "answer", answers: [["red"]] });
    expect(output().match(/Please answer with one number from 1 to 3/g)).toHaveLength(3);
  });

  it("declines on an empty line", async () => {
    const { prompt } = promptWith("\n");
    await expect(prompt.question(PICK)).resolves.toEqual({ reply: "reject" });
  });

  it("answers each question in turn, and takes free text where there are no options", async () => {
    const { prompt, output } = promptWith("1\nsomething else\n");
    const two: QuestionAsk = {
      requestId: "que_2",
      questions: [PICK.questions[0], { question: "Why?", header: "Reason", options: [] }],
    };
    await expect(prompt.question(two)).resolves.toEqual({
      reply: "answer",
      answers: [["red"], ["something else"]],
    });
    expect(output()).toContain("Question (2/2): Reason: Why?\n");
  });
});
