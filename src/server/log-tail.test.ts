import { describe, expect, it } from "vitest";
import { LineSplitter, LogTail, REDACTED, SecretRedactor } from "./log-tail.js";

function split(redactor: SecretRedactor, chunks: string[], maxLineLength?: number): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter(redactor, (line) => lines.push(line), maxLineLength);
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return lines;
}

describe("SecretRedactor", () => {
  it("replaces the secret, its URL encoding and its Basic auth encoding", () => {
    const secret = "p@ss word/1";
    const redactor = new SecretRedactor([{ value: secret, username: "opencode" }]);
    const basic = Buffer.from(`opencode:${secret}`).toString("base64");
    const text = `a ${secret} b ${encodeURIComponent(secret)} c Basic ${basic}`;
    expect(redactor.redact(text)).toBe(`a ${REDACTED} b ${REDACTED} c Basic ${REDACTED}`);
  });

  it("ignores empty secrets", () => {
    expect(new SecretRedactor([""]).redact("nothing to hide")).toBe("nothing to hide");
  });
});

describe("LineSplitter", () => {
  it("joins chunks into lines, drops CR and ANSI colours, and flushes the last line", () => {
    const lines = split(new SecretRedactor(), [
      "first li",
      "ne\r\n\u001b[91m\u001b[1mError: \u001b[0mUnexpected",
      " error\nlast without newline",
    ]);
    expect(lines).toEqual(["first line", "Error: Unexpected error", "last without newline"]);
  });

  it("redacts a secret that arrives split across chunks", () => {
    const lines = split(new SecretRedactor(["hunter2-secret"]), ["token=hun", "ter2-se", "cret\n"]);
    expect(lines).toEqual([`token=${REDACTED}`]);
  });

  it("cuts an overlong line where no secret straddles the cut", () => {
    const secret = "S3CRET-VALUE";
    // The secret sits exactly across the first natural cut at 20 characters.
    const text = `${"x".repeat(15)}${secret}${"y".repeat(30)}`;
    for (const chunks of [[text], [text.slice(0, 22), text.slice(22)]]) {
      const lines = split(new SecretRedactor([secret]), chunks, 20);
      expect(lines.join("")).toBe(`${"x".repeat(15)}${REDACTED}${"y".repeat(30)}`);
      expect(lines.join("\n")).not.toContain("S3CRET");
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(20);
    }
  });
});

describe("LogTail", () => {
  it("keeps only the last lines, oldest first", () => {
    const tail = new LogTail(3);
    for (const line of ["1", "2", "3", "4", "5"]) tail.push(line);
    expect(tail.snapshot()).toEqual(["3", "4", "5"]);
  });

  it("hands out copies", () => {
    const tail = new LogTail();
    tail.push("a");
    tail.snapshot().push("b");
    expect(tail.snapshot()).toEqual(["a"]);
  });
});
