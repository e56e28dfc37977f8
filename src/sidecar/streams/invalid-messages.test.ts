import { describe, expect, it } from "vitest";
import { InvalidMessages } from "./invalid-messages.js";

describe("InvalidMessages", () => {
  it("says too many only past the bound within the window", () => {
    const invalid = new InvalidMessages(3, 1000);
    expect([0, 10, 20].map((at) => invalid.add(at))).toEqual([false, false, false]);
    expect(invalid.add(30)).toBe(true);
  });

  it("forgets the ones that left the window", () => {
    const invalid = new InvalidMessages(2, 1000);
    invalid.add(0);
    invalid.add(500);
    expect(invalid.add(1000)).toBe(false); // the one at 0 has left
    expect(invalid.add(1200)).toBe(true);
  });
});
