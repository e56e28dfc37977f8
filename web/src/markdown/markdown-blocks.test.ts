import { describe, expect, it } from "vitest";
import { markdownBlocks } from "./markdown-blocks.js";

describe("markdownBlocks", () => {
  it("cuts at blank lines, and the blocks join back to the text", () => {
    const text = "# Title\n\nA paragraph\nstill it.\n\n- a\n- b\n";
    const blocks = markdownBlocks(text);
    expect(blocks).toEqual(["# Title\n", "A paragraph\nstill it.\n", "- a\n- b\n"]);
  });

  it("does not cut inside a fenced code block, closed or still open", () => {
    const closed = "```ts\nconst a = 1;\n\nconst b = 2;\n```\n\nafter";
    expect(markdownBlocks(closed)).toEqual(["```ts\nconst a = 1;\n\nconst b = 2;\n```\n", "after"]);
    const open = "before\n\n~~~\ncode\n\nmore code";
    expect(markdownBlocks(open)).toEqual(["before\n", "~~~\ncode\n\nmore code"]);
  });

  it("keeps earlier blocks unchanged as the text grows", () => {
    const text = "one\n\ntwo\n\nthree and more";
    for (let end = 1; end <= text.length; end++) {
      const grown = markdownBlocks(text.slice(0, end));
      const whole = markdownBlocks(text);
      // Every block but the last (still growing) is a block of the whole text.
      for (const [index, block] of grown.slice(0, -1).entries()) expect(block).toBe(whole[index]);
    }
  });

  it("gives one block for a paragraph that never ends, none for nothing", () => {
    expect(markdownBlocks("tok1 tok2 tok3")).toEqual(["tok1 tok2 tok3"]);
    expect(markdownBlocks("")).toEqual([]);
  });
});
