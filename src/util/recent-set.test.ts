import { describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { RecentSet } from "./recent-set.js";

describe("RecentSet", () => {
  it("keeps the latest members up to its capacity and forgets the oldest", () => {
    const set = new RecentSet<string>(2);
    set.add("a").add("b").add("c");
    expect(set.size).toBe(2);
    expect([set.has("a"), set.has("b"), set.has("c")]).toEqual([false, true, true]);
  });

  it("counts a member added again as the latest", () => {
    const set = new RecentSet<string>(2);
    set.add("a").add("b").add("a").add("c");
    expect([set.has("a"), set.has("b"), set.has("c")]).toEqual([true, false, true]);
  });

  it("refuses a capacity below 1", () => {
    expect(() => new RecentSet(0)).toThrow(UsageError);
  });
});
