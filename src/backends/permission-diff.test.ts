import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { CanonicalEventOf } from "../events/canonical.js";
import { DIFF_MAX_BYTES, diffOfToolCall, withCheckedDiff } from "./permission-diff.js";

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

describe("diffOfToolCall outside the session directory", () => {
  const home = mkdtempSync(join(tmpdir(), "ocb-diff-home-"));
  const secret = join(home, ".ssh", "id_rsa");
  mkdirSync(join(home, ".ssh"));
  writeFileSync(secret, "-----BEGIN OPENSSH PRIVATE KEY-----\nSECRET-KEY-MATERIAL\n");
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it("reads no file outside the directory: no diff, the file named and the reason given", async () => {
    for (const [tool, input] of [
      ["write", { filePath: secret, content: "overwritten\n" }],
      ["edit", { filePath: secret, oldString: "SECRET", newString: "x" }],
      [
        "edit",
        { path: "../../../../../../../..".concat(secret), oldString: "SECRET", newString: "x" },
      ],
    ] as const) {
      const result = await diffOfToolCall(directory, tool, input);
      expect(result).toEqual({ files: [secret], diffOmitted: "outside-directory" });
      expect(JSON.stringify(result)).not.toContain("SECRET-KEY-MATERIAL");
    }
  });

  it("follows symlinks: a link inside pointing out is outside", async () => {
    symlinkSync(secret, join(directory, "innocent.txt"));
    symlinkSync(join(home, ".ssh"), join(directory, "keys"));
    for (const path of ["innocent.txt", "keys/id_rsa", "keys/new-file"]) {
      const result = await diffOfToolCall(directory, "write", { path, content: "x\n" });
      expect(result?.diffOmitted).toBe("outside-directory");
      expect(result?.diff).toBeUndefined();
      expect(JSON.stringify(result)).not.toContain("SECRET-KEY-MATERIAL");
    }
  });

  it("takes ~/ as the user's home, outside the directory", async () => {
    const result = await diffOfToolCall(directory, "edit", {
      filePath: "~/.ssh/id_rsa",
      oldString: "a",
      newString: "b",
    });
    expect(result).toEqual({
      files: [join(homedir(), ".ssh", "id_rsa")],
      diffOmitted: "outside-directory",
    });
  });

  it("still diffs a file reached through a symlinked session directory", async () => {
    const link = join(home, "project-link");
    symlinkSync(directory, link);
    writeFileSync(join(directory, "c.txt"), "left\n");
    const result = await diffOfToolCall(link, "edit", {
      filePath: join(link, "c.txt"),
      oldString: "left",
      newString: "right",
    });
    expect(result?.diff).toContain("+right");
  });
});

describe("diffOfToolCall's bounds (the model chooses the input)", () => {
  const lines = (count: number, prefix: string) =>
    Array.from({ length: count }, (_, index) => `${prefix} line ${index}`).join("\n");

  it("reads no file over the bound, nor diffs a result over it: the ask says so", async () => {
    writeFileSync(join(directory, "huge.txt"), "x".repeat(DIFF_MAX_BYTES + 1));
    expect(
      await diffOfToolCall(directory, "edit", { path: "huge.txt", oldString: "x", newString: "y" }),
    ).toEqual({ files: [join(directory, "huge.txt")], diffOmitted: "too-large" });
    expect(
      await diffOfToolCall(directory, "write", {
        path: "small.txt",
        content: "y".repeat(DIFF_MAX_BYTES + 1),
      }),
    ).toEqual({ files: [join(directory, "small.txt")], diffOmitted: "too-large" });
  });

  it("gives up a whole rewrite of 10,000 lines (it froze the process for 15-36 s): too-slow", async () => {
    writeFileSync(join(directory, "big.txt"), lines(10_000, "old"));
    const result = await diffOfToolCall(directory, "write", {
      path: "big.txt",
      content: lines(10_000, "new"),
    });
    expect(result).toEqual({ files: [join(directory, "big.txt")], diffOmitted: "too-slow" });
  });

  it("still diffs a small edit of a 10,000-line file", async () => {
    writeFileSync(join(directory, "long.txt"), lines(10_000, "same"));
    const result = await diffOfToolCall(directory, "edit", {
      path: "long.txt",
      oldString: "same line 5000\n",
      newString: "changed line 5000\n",
    });
    expect(result?.diff).toContain("-same line 5000");
    expect(result?.diff).toContain("+changed line 5000");
  });
});

describe("withCheckedDiff: a diff the server sent", () => {
  const outside = mkdtempSync(join(tmpdir(), "ocb-diff-outside-"));
  const secret = join(outside, "secret.env");
  writeFileSync(secret, "TOKEN=outside-secret\n");
  afterAll(() => rmSync(outside, { recursive: true, force: true }));

  const ask = (data: Partial<CanonicalEventOf<"permission.asked">["data"]>) =>
    ({
      type: "permission.asked",
      data: { requestId: "per_1", permission: "edit", patterns: ["*"], ...data },
    }) as unknown as CanonicalEventOf<"permission.asked">;

  it("drops OpenCode's diff of a link inside the project that points outside it", () => {
    const link = join(directory, "innocent.env");
    symlinkSync(secret, link);
    // What the legacy server sent: the link's path, and the outside file's contents in the diff.
    const diff = `Index: ${link}\n--- ${link}\n+++ ${link}\n@@ -1,1 +1,1 @@\n-TOKEN=outside-secret\n+x\n`;
    const checked = withCheckedDiff(directory, ask({ diff, files: [link] }));
    expect(checked.data).toMatchObject({ files: [link], diffOmitted: "outside-directory" });
    expect(JSON.stringify(checked)).not.toContain("outside-secret");
    // Named only in the diff's own lines, it is found too.
    expect(withCheckedDiff(directory, ask({ diff })).data).not.toHaveProperty("diff");
  });

  it("keeps a diff of files inside, and leaves other events be", () => {
    const inside = join(directory, "inside.txt");
    writeFileSync(inside, "a\n");
    const diff = `--- ${inside}\n+++ ${inside}\n@@ -1 +1 @@\n-a\n+b\n`;
    const event = ask({ diff, files: [inside] });
    expect(withCheckedDiff(directory, event)).toBe(event);
    const other = ask({});
    expect(withCheckedDiff(directory, other)).toBe(other);
  });
});
