import { describe, expect, it } from "vitest";
import { closestNames, levenshtein } from "./closest-names.js";

describe("closestNames", () => {
  const known = ["demo/demo-1", "demo/demo-2", "opencode/big-pickle", "opencode/gpt-5-nano"];

  it("ranks by edit distance, a typo first", () => {
    expect(closestNames("demo/demo-l", known)).toEqual(["demo/demo-1", "demo/demo-2"]);
    expect(closestNames("demoo/demo-2", known)[0]).toBe("demo/demo-2");
  });

  it("counts a name containing the typed one as close", () => {
    expect(closestNames("pickle", known)).toEqual(["opencode/big-pickle"]);
  });

  it("leaves out far-off names and keeps at most `limit`", () => {
    expect(closestNames("anthropic/claude-sonnet-4", known)).toEqual([]);
    expect(closestNames("demo", ["demo/a", "demo/b", "demo/c"], 2)).toEqual(["demo/a", "demo/b"]);
  });

  it("is case-insensitive", () => {
    expect(closestNames("DEMO/DEMO-1", known)[0]).toBe("demo/demo-1");
  });
});

describe("levenshtein", () => {
  it("counts insertions, deletions and substitutions", () => {
    expect(levenshtein("kitten", "sitting")).toBe(3);
    expect(levenshtein("", "abc")).toBe(3);
    expect(levenshtein("same", "same")).toBe(0);
  });
});
