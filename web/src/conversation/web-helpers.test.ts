import type { PermissionPart } from "opencode-bridge/client";
import { describe, expect, it } from "vitest";
import { describeRef } from "./attachment-ref.js";
import { messageLayout } from "./message-layout.js";
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
      mime: "image/png",
    });
    expect(describeRef("/work/dir/notes.md").name).toBe("notes.md");
    expect(describeRef("https://example.com/a/b.png").name).toBe("b.png");
  });
});

describe("messageLayout", () => {
  it("nests a subagent in its call's tool card and keeps an asked diff off the card", () => {
    const tool = { type: "tool", callId: "c1", tool: "task", input: {}, state: "running" } as const;
    const subagent = {
      type: "subagent",
      callId: "c1",
      childSessionId: "ses_c",
      state: "running",
    } as const;
    const orphan = {
      type: "subagent",
      callId: "c2",
      childSessionId: "ses_d",
      state: "ended",
    } as const;
    const ask: PermissionPart = {
      type: "permission",
      requestId: "per_1",
      permission: "edit",
      patterns: [],
      callId: "c3",
      diff: "+x",
    };
    const layout = messageLayout([tool, subagent, orphan, ask]);
    expect(layout.subagents.get("c1")).toBe(subagent);
    expect(layout.toolCalls.has("c1")).toBe(true);
    expect(layout.toolCalls.has("c2")).toBe(false);
    expect([...layout.askedDiffs]).toEqual(["c3"]);
  });
});
