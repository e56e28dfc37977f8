import { describe, expect, it } from "vitest";
import {
  HIGHLIGHT_MAX_CHARS,
  HIGHLIGHT_MAX_LINE_CHARS,
  HIGHLIGHT_MAX_LINES,
  highlightedLines,
  withinHighlightBounds,
} from "./highlighted-lines.js";

describe("highlightedLines", () => {
  it("gives one HTML line a line of text, memoised by language and text", () => {
    const text = "let a = 1;\n\nlet b = 'x';";
    const lines = highlightedLines(text, "typescript");
    expect(lines).toEqual([
      '<span class="hljs-keyword">let</span> a = <span class="hljs-number">1</span>;',
      "",
      '<span class="hljs-keyword">let</span> b = <span class="hljs-string">&#x27;x&#x27;</span>;',
    ]);
    expect(highlightedLines(text, "typescript")).toBe(lines);
    expect(highlightedLines(text, "python")).not.toBe(lines);
  });

  it("gives nothing for no language or one highlight.js does not know", () => {
    expect(highlightedLines("let a;", undefined)).toBeUndefined();
    expect(highlightedLines("let a;", "cobol")).toBeUndefined();
  });

  it("gives nothing past the bounds: too many characters, lines, or a line too long", () => {
    const line = "x".repeat(HIGHLIGHT_MAX_LINE_CHARS);
    expect(withinHighlightBounds(line)).toBe(true);
    expect(withinHighlightBounds(`${line}x`)).toBe(false);
    expect(withinHighlightBounds(`${line}x\nshort`)).toBe(false);
    expect(withinHighlightBounds("a\n".repeat(HIGHLIGHT_MAX_LINES - 1))).toBe(true);
    expect(withinHighlightBounds("a\n".repeat(HIGHLIGHT_MAX_LINES))).toBe(false);
    const many = `${"y".repeat(1_000)}\n`.repeat(Math.ceil(HIGHLIGHT_MAX_CHARS / 1_001) + 1);
    expect(many.split("\n").length).toBeLessThan(HIGHLIGHT_MAX_LINES);
    expect(withinHighlightBounds(many)).toBe(false);
    expect(highlightedLines(`${line}x`, "typescript")).toBeUndefined();
  });
});
