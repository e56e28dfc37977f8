import { describe, expect, it } from "vitest";
import { commandCall, looksLikeCommand, replaceToken, tokenAtCaret } from "./composer-token.js";

describe("tokenAtCaret", () => {
  it("reads a command's name only as the message's first word", () => {
    expect(tokenAtCaret("/", 1)).toEqual({ kind: "command", query: "", start: 0, end: 1 });
    expect(tokenAtCaret("/gre", 4)).toEqual({ kind: "command", query: "gre", start: 0, end: 4 });
    // Past the name (its arguments), or not at the start: no list.
    expect(tokenAtCaret("/greet wor", 10)).toBeUndefined();
    expect(tokenAtCaret("see /gre", 8)).toBeUndefined();
    // A path is not a command being typed.
    expect(tokenAtCaret("/etc/ho", 7)).toBeUndefined();
  });

  it("reads @letters after a space or at the start, up to the caret", () => {
    expect(tokenAtCaret("@not", 4)).toEqual({ kind: "file", query: "not", start: 0, end: 4 });
    expect(tokenAtCaret("look at @src/no please", 15)).toEqual({
      kind: "file",
      query: "src/no",
      start: 8,
      end: 15,
    });
    // `@` alone, an e-mail address, or the caret past the token's space: no list.
    expect(tokenAtCaret("look @", 6)).toBeUndefined();
    expect(tokenAtCaret("mail me@home", 12)).toBeUndefined();
    expect(tokenAtCaret("@notes ", 7)).toBeUndefined();
  });
});

describe("replaceToken", () => {
  it("puts the pick in the token's place with one space after it, the caret past that space", () => {
    const token = { kind: "file", query: "not", start: 5, end: 9 } as const;
    expect(replaceToken("read @not", token, "@notes.md")).toEqual({
      text: "read @notes.md ",
      caret: 15,
    });
    expect(replaceToken("read @not and then", token, "@notes.md")).toEqual({
      text: "read @notes.md and then",
      caret: 15,
    });
  });
});

describe("commandCall", () => {
  const known = new Set(["greet", "init"]);

  it("is a known name and the rest as its arguments", () => {
    expect(commandCall("/greet big world", known)).toEqual({
      name: "greet",
      arguments: "big world",
    });
    expect(commandCall("  /init\n", known)).toEqual({ name: "init", arguments: "" });
    expect(commandCall("/greet line one\nline two", known)).toEqual({
      name: "greet",
      arguments: "line one\nline two",
    });
  });

  it("leaves an unknown /word, a path and plain text to be sent as text", () => {
    expect(commandCall("/unknown thing", known)).toBeUndefined();
    expect(commandCall("/etc/hosts is odd", known)).toBeUndefined();
    expect(commandCall("greet", known)).toBeUndefined();
  });

  it("knows what starts like a command", () => {
    expect(looksLikeCommand("/greet x")).toBe(true);
    expect(looksLikeCommand("/etc/hosts")).toBe(false);
    expect(looksLikeCommand("hello /greet")).toBe(false);
  });
});
