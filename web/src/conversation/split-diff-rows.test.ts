import { describe, expect, it } from "vitest";
import { splitRows } from "./split-diff-rows.js";

describe("splitRows", () => {
  it("pairs a removed run with the added run after it, context on both sides", () => {
    expect(splitRows(["@@ -1,3 +1,4 @@", " a", "-b", "-c", "+B", "+C", "+D", " e"])).toEqual([
      { kind: "header", line: "@@ -1,3 +1,4 @@", lineKind: "hunk" },
      { kind: "pair", before: " a", after: " a" },
      { kind: "pair", before: "-b", after: "+B" },
      { kind: "pair", before: "-c", after: "+C" },
      { kind: "pair", before: undefined, after: "+D" },
      { kind: "pair", before: " e", after: " e" },
    ]);
  });

  it("does not pair a removal with the additions before it", () => {
    expect(splitRows(["+x", "-y"])).toEqual([
      { kind: "pair", before: undefined, after: "+x" },
      { kind: "pair", before: "-y", after: undefined },
    ]);
  });

  it("keeps what a caller gives with each line, read through its text", () => {
    const lines = ["@@ -1 +1 @@", "-a", "+A"].map((text, index) => ({ text, index }));
    expect(splitRows(lines, (line) => line.text)).toEqual([
      { kind: "header", line: lines[0], lineKind: "hunk" },
      { kind: "pair", before: lines[1], after: lines[2] },
    ]);
  });
});
