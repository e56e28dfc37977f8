import { describe, expect, it } from "vitest";
import { clipText } from "./clip-text.js";

describe("clipText", () => {
  it("keeps text within the bound and cuts longer text to it, ending in an ellipsis", () => {
    expect(clipText("short", 5)).toBe("short");
    expect(clipText("longer", 5)).toBe("long…");
    expect(clipText("longer", 5)).toHaveLength(5);
  });
});
