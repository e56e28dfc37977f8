import { describe, expect, it } from "vitest";
import { terminalLine, terminalText } from "./terminal-text.js";

describe("terminalText", () => {
  it("keeps printable text, tabs and newlines", () => {
    const text = "+\tconst a = 1; // ünïcode → ✓\n-old line\n";
    expect(terminalText(text)).toBe(text);
  });

  it("drops colours, cursor moves and screen clears (CSI)", () => {
    expect(terminalText("\u001b[31mred\u001b[0m \u001b[2J\u001b[1;1Htop \u001b[?25lx")).toBe(
      "red top x",
    );
  });

  it("drops window titles, hyperlinks and clipboard writes (OSC), ended by BEL or ST", () => {
    expect(terminalText("a\u001b]0;pwned\u0007b")).toBe("ab");
    expect(terminalText("a\u001b]52;c;ZXZpbA==\u001b\\b")).toBe("ab");
    expect(terminalText("\u001b]8;;https://evil.example\u001b\\link\u001b]8;;\u001b\\")).toBe(
      "link",
    );
  });

  it("drops device control strings, two-byte escapes and a sequence cut at the end", () => {
    expect(terminalText("a\u001bPq#0;2;0;0;0\u001b\\b")).toBe("ab");
    expect(terminalText("a\u001bcb\u001b7c")).toBe("abc");
    expect(terminalText("a\u001b[31")).toBe("a");
    expect(terminalText("a\u001b]0;no end")).toBe("a");
    expect(terminalText("a\u001b")).toBe("a");
  });

  it("drops the 8-bit forms and lone control characters (CR, backspace, bell, DEL)", () => {
    expect(terminalText("a\u009b31mb\u009d0;t\u0007c")).toBe("abc");
    expect(terminalText("safe\rEVIL\b\b\u0007\u007f\u0085!")).toBe("safeEVIL!");
  });
});

describe("terminalLine", () => {
  it("puts a path or title on one line", () => {
    expect(terminalLine("a\nb\tc\u001b[2Kd")).toBe("a b cd");
  });
});
