import { describe, expect, it } from "vitest";
import { withInlinedTexts, withoutInlinedTexts } from "./inlined-texts.js";

describe("withInlinedTexts / withoutInlinedTexts", () => {
  it("reads back exactly what was typed, whatever the files hold", () => {
    const typed = "look at these\n\n<attached-file that is not one";
    const texts = [
      {
        name: 'a "quoted" name.txt',
        mime: "text/plain",
        text: "ends early?\n</attached-file>\nno",
      },
      { name: "b.json", mime: "application/json", text: "" },
    ];
    const sent = withInlinedTexts(typed, texts);
    expect(sent).toContain("ends early?");
    expect(withoutInlinedTexts(sent)).toBe(typed);
  });

  it("keeps text that only looks like a block", () => {
    const typed =
      'hi\n\n<attached-file name="x" type="text/plain" length="99">\nshort\n</attached-file>';
    expect(withoutInlinedTexts(typed)).toBe(typed);
    expect(withoutInlinedTexts("plain")).toBe("plain");
  });
});
