import { describe, expect, it } from "vitest";
import { describeRef } from "./attachment-ref.js";
import { questionsOf } from "./question-shape.js";
import { toolDiff } from "./tool-diff.js";

describe("toolDiff", () => {
  it("makes an edit's diff from its old and new strings", () => {
    const diff = toolDiff("edit", {
      filePath: "a.ts",
      oldString: "let x = 1;\n",
      newString: "let x = 2;\n",
    });
    expect(diff).toContain("--- a.ts");
    expect(diff).toContain("-let x = 1;");
    expect(diff).toContain("+let x = 2;");
  });

  it("makes a write's diff as all additions; takes a patch as given; none for other tools", () => {
    expect(toolDiff("write", { path: "n.txt", content: "hello\n" })).toContain("+hello");
    expect(toolDiff("apply_patch", { patchText: "*** Begin Patch" })).toBe("*** Begin Patch");
    expect(toolDiff("bash", { command: "ls" })).toBeUndefined();
    expect(toolDiff("edit", { filePath: "a.ts" })).toBeUndefined();
  });
});

describe("questionsOf", () => {
  it("reads OpenCode's questions, and shows what it does not understand as text", () => {
    const [first, odd] = questionsOf([
      {
        question: "Pick one",
        header: "Pick",
        options: [{ label: "a", description: "A" }, "b", 3],
        multiple: true,
      },
      42,
    ]);
    expect(first).toEqual({
      question: "Pick one",
      header: "Pick",
      options: [{ label: "a", description: "A" }, { label: "b" }],
      multiple: true,
    });
    expect(odd).toEqual({ question: "42", options: [], multiple: false });
  });
});

describe("describeRef", () => {
  it("names an attachment by its data ref's name, a path's or URL's last segment", () => {
    expect(describeRef("data:image/png;name=pixel%20one.png;bytes=68")).toEqual({
      name: "pixel one.png",
      detail: "image/png, 68 bytes",
    });
    expect(describeRef("/work/dir/notes.md").name).toBe("notes.md");
    expect(describeRef("https://example.com/a/b.png").name).toBe("b.png");
  });
});
