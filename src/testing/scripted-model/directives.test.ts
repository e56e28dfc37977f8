import { describe, expect, it } from "vitest";
import { UsageError } from "../../errors.js";
import { defaultErrorBody, parseDirectives } from "./directives.js";

describe("parseDirectives", () => {
  it("finds nothing in plain text and keeps the text for the echo", () => {
    expect(parseDirectives("  hello there ")).toEqual({ tools: [], text: "hello there" });
  });

  it("reads reply, then and reasoning, and strips them from the text", () => {
    expect(parseDirectives("a [[reasoning think hard]] b [[reply Hello, world!]] c")).toEqual({
      tools: [],
      reasoning: "think hard",
      final: { kind: "reply", text: "Hello, world!" },
      text: "a  b  c",
    });
    expect(parseDirectives("[[then all done]]").final).toEqual({ kind: "reply", text: "all done" });
  });

  it("reads slow with and without a delay", () => {
    expect(parseDirectives("[[slow 5 20]]").final).toEqual({ kind: "slow", count: 5, delayMs: 20 });
    expect(parseDirectives("[[slow 3]]").final).toEqual({ kind: "slow", count: 3, delayMs: 50 });
  });

  it("reads chained tools in order, with JSON that contains ]]", () => {
    const script = parseDirectives(
      '[[tool write {"filePath":"a.txt","content":"[[x]]"}]] then [[tool bash {"command":"ls"}]] [[tool todoread]]',
    );
    expect(script.tools).toEqual([
      { name: "write", arguments: '{"filePath":"a.txt","content":"[[x]]"}' },
      { name: "bash", arguments: '{"command":"ls"}' },
      { name: "todoread", arguments: "{}" },
    ]);
    expect(script.text).toBe("then");
  });

  it("accepts tool JSON whose quotes were escaped by `opencode run`", () => {
    const script = parseDirectives('"[[tool bash {\\"command\\":\\"echo hi\\"}]]"');
    expect(script.tools).toEqual([{ name: "bash", arguments: '{"command":"echo hi"}' }]);
  });

  it("reads error with the default body, a custom body and times=N", () => {
    expect(parseDirectives("[[error 500]]").final).toEqual({
      kind: "error",
      status: 500,
      body: { error: { message: "scripted provider error", type: "server_error" } },
    });
    expect(parseDirectives("[[error 401]]").final).toMatchObject({
      body: defaultErrorBody(401),
    });
    expect(defaultErrorBody(401).error.type).toBe("invalid_request_error");
    expect(
      parseDirectives('[[error 429 times=2 {"error":{"message":"slow down"}}]]').final,
    ).toEqual({ kind: "error", status: 429, body: { error: { message: "slow down" } }, times: 2 });
  });

  it("reads chunks", () => {
    expect(parseDirectives("[[chunks 10]] [[reply hi]]")).toMatchObject({
      chunks: 10,
      final: { kind: "reply", text: "hi" },
    });
  });

  it("reads hang", () => {
    expect(parseDirectives("wait [[hang]]").final).toEqual({ kind: "hang" });
  });

  it("leaves unknown [[words]] and bare brackets as text", () => {
    expect(parseDirectives("see [[wiki link]] and [[ replyx ]] [[reply-ish]]")).toEqual({
      tools: [],
      text: "see [[wiki link]] and [[ replyx ]] [[reply-ish]]",
    });
  });

  it.each([
    ["[[slow abc]]", /N an integer/],
    ["[[slow 0 10]]", /N an integer/],
    ["[[tool]]", /single-word NAME/],
    ["[[tool bash {not json}]]", /JSON object/],
    ["[[tool bash [1,2]]]", /JSON object/],
    ["[[error 200]]", /STATUS from 400 to 599/],
    ["[[error 500 twice]]", /times=N/],
    ["[[hang now]]", /no arguments/],
    ["[[chunks 0]]", /N an integer/],
    ["[[chunks 10001]]", /N an integer/],
    ["[[chunks 2]] [[chunks 3]]", /only once/],
    ["[[reply a]] [[hang]]", /only one of/],
    ["[[reasoning a]] [[reasoning b]]", /only once/],
    ["[[reply never closed", /Unclosed/],
  ])("rejects %s with a UsageError", (text, message) => {
    expect(() => parseDirectives(text)).toThrow(UsageError);
    expect(() => parseDirectives(text)).toThrow(message);
  });
});
