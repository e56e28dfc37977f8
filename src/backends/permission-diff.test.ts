import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { diffOfToolCall } from "./permission-diff.js";

const directory = mkdtempSync(join(tmpdir(), "ocb-diff-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("diffOfToolCall", () => {
  it("shows a new file written as all added lines, with its absolute path", async () => {
    const result = await diffOfToolCall(directory, "write", { path: "new.txt", content: "hi\n" });
    expect(result?.files).toEqual([join(directory, "new.txt")]);
    expect(result?.diff).toContain("+hi");
  });

  it("shows an edit against the file as it is now (legacy and /api argument names)", async () => {
    writeFileSync(join(directory, "a.txt"), "one\ntwo\n");
    const api = await diffOfToolCall(directory, "edit", {
      path: "a.txt",
      oldString: "two",
      newString: "2",
    });
    expect(api?.diff).toContain("-two");
    expect(api?.diff).toContain("+2");
    const legacy = await diffOfToolCall(directory, "edit", {
      filePath: join(directory, "a.txt"),
      oldString: "one",
      newString: "1",
    });
    expect(legacy?.diff).toContain("+1");
  });

  it("says nothing it cannot know: other tools, missing arguments, old text not found", async () => {
    expect(await diffOfToolCall(directory, "bash", { command: "ls" })).toBeUndefined();
    expect(await diffOfToolCall(directory, "write", { path: "x.txt" })).toBeUndefined();
    writeFileSync(join(directory, "b.txt"), "abc");
    expect(
      await diffOfToolCall(directory, "edit", { path: "b.txt", oldString: "zzz", newString: "y" }),
    ).toBeUndefined();
  });
});
