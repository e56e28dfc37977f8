import { describe, expect, it } from "vitest";
import { highlighted } from "../markdown/highlight.js";
import { highlightedHtmlLines } from "./highlighted-html-lines.js";

describe("highlightedHtmlLines", () => {
  it("closes a span at a line's end and opens it again on the next line", () => {
    const html = 'a <span class="hljs-comment">/* one\ntwo\nthree */</span> b\nc';
    expect(highlightedHtmlLines(html)).toEqual([
      'a <span class="hljs-comment">/* one</span>',
      '<span class="hljs-comment">two</span>',
      '<span class="hljs-comment">three */</span> b',
      "c",
    ]);
  });

  it("reopens nested spans in their order, and keeps empty lines", () => {
    const html = '<span class="hljs-string">`a<span class="hljs-subst">(\n\nb)</span>`</span>';
    expect(highlightedHtmlLines(html)).toEqual([
      '<span class="hljs-string">`a<span class="hljs-subst">(</span></span>',
      '<span class="hljs-string"><span class="hljs-subst"></span></span>',
      '<span class="hljs-string"><span class="hljs-subst">b)</span>`</span>',
    ]);
  });

  it("gives as many lines as the text has, for highlight.js's own output", () => {
    const code = "const a = `x\ny`;\n/* c\n d */\nlet b = 'q';\n";
    const lines = highlightedHtmlLines(highlighted(code, "typescript") as string);
    expect(lines).toHaveLength(code.split("\n").length);
    expect(lines?.[1]).toBe('<span class="hljs-string">y`</span>;');
    expect(lines?.[3]).toBe('<span class="hljs-comment"> d */</span>');
  });

  it("refuses anything but escaped text and spans of plain class names", () => {
    for (const html of [
      '<img src=x onerror="alert(1)">',
      "<script>alert(1)</script>",
      '<span class="x" onclick="alert(1)">a</span>',
      "<span>a</span>",
      '<span class="a"b">c</span>',
      "a > b",
      "a < b",
      "</span>",
      '<span class="hljs-string">open',
    ]) {
      expect(highlightedHtmlLines(html), html).toBeUndefined();
    }
  });

  it("keeps planted HTML escaped in highlight.js's output", () => {
    const planted = `const s = "<img src=x onerror=alert(1)>";`;
    const lines = highlightedHtmlLines(highlighted(planted, "typescript") as string);
    expect(lines?.join("")).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(lines?.join("")).not.toContain("<img");
  });
});
