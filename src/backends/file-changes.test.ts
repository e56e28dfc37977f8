import { describe, expect, it } from "vitest";
import { boundedPatches, type FileDiff, MAX_DIFF_CHARS, MAX_PATCH_CHARS } from "./file-changes.js";

const file = (path: string, patch?: string): FileDiff => ({
  path,
  status: "modified",
  additions: 1,
  deletions: 0,
  ...(patch === undefined ? {} : { patch }),
});

describe("boundedPatches", () => {
  it("keeps a diff within the bounds whole", () => {
    expect(boundedPatches([file("a", "+a\n"), file("b")])).toEqual([file("a", "+a\n"), file("b")]);
  });

  it("cuts a diff over MAX_PATCH_CHARS and says so", () => {
    const [cut] = boundedPatches([file("big", "x".repeat(MAX_PATCH_CHARS + 10))]);
    expect(cut?.patch).toHaveLength(MAX_PATCH_CHARS);
    expect(cut?.patchTruncated).toBe(true);
  });

  it("gives no diff past MAX_DIFF_CHARS in all, flagging the files left without", () => {
    const count = Math.ceil(MAX_DIFF_CHARS / MAX_PATCH_CHARS) + 2;
    const files = Array.from({ length: count }, (_, index) =>
      file(`f${index}`, "y".repeat(MAX_PATCH_CHARS)),
    );
    const bounded = boundedPatches(files);
    const total = bounded.reduce((sum, each) => sum + (each.patch?.length ?? 0), 0);
    expect(total).toBeLessThanOrEqual(MAX_DIFF_CHARS);
    const without = bounded.filter((each) => each.patch === undefined);
    expect(without.length).toBeGreaterThan(0);
    for (const each of without) expect(each.patchTruncated).toBe(true);
    // Its lines are still told.
    expect(without[0]).toMatchObject({ additions: 1, deletions: 0 });
  });
});
