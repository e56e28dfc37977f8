import { describe, expect, it } from "vitest";
import { sessionLabel, titleFromMessage, UNTITLED } from "./session-label.js";

describe("sessionLabel", () => {
  it("shows the title, and never an id for a session without one", () => {
    expect(sessionLabel("Fix the build")).toBe("Fix the build");
    expect(sessionLabel(undefined)).toBe(UNTITLED);
    expect(sessionLabel("   ")).toBe(UNTITLED);
  });
});

describe("titleFromMessage", () => {
  it("keeps a short message whole, on one line", () => {
    expect(titleFromMessage("  Explain\nthis   project ")).toBe("Explain this project");
  });

  it("keeps the first eight words of a long one, with an ellipsis", () => {
    expect(titleFromMessage("one two three four five six seven eight nine ten")).toBe(
      "one two three four five six seven eight…",
    );
  });

  it("cuts a long run of characters at sixty", () => {
    const title = titleFromMessage("x".repeat(200));
    expect(title).toBe(`${"x".repeat(59)}…`);
  });

  it("cuts a long title at a word's end", () => {
    const word = "internationalization";
    expect(titleFromMessage(`${word} ${word} ${word} ${word}`)).toBe(`${word} ${word}…`);
  });

  it("gives nothing for a message of no words", () => {
    expect(titleFromMessage(" \n ")).toBeUndefined();
  });
});
