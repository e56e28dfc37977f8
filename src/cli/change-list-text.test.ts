import { describe, expect, it } from "vitest";
import type { SessionChangesView } from "../client/index.js";
import { ANSI, RESET } from "./ansi.js";
import { changeListText } from "./change-list-text.js";

const PATCH_A = "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n";
const PATCH_OLD = "--- a/old.txt\n+++ b/old.txt\n@@ -1,2 +1,3 @@\n a\n-b\n+B\n+c\n";

const CHANGES: SessionChangesView = {
  files: [
    { path: "a.txt", status: "added", additions: 2, deletions: 0, patch: PATCH_A },
    { path: "old.txt", status: "modified", additions: 2, deletions: 1, patch: PATCH_OLD },
    { path: "gone.bin", status: "deleted", additions: 0, deletions: 0 },
  ],
};

const plain = { stat: false, color: false };

describe("changeListText", () => {
  it("prints each file's status, counts and path, then its diff", () => {
    expect(changeListText(CHANGES, plain)).toBe(
      [
        `added    +2 -0 a.txt\n${PATCH_A}`,
        `modified +2 -1 old.txt\n${PATCH_OLD}`,
        "deleted  +0 -0 gone.bin\n(no diff: a binary file)\n",
      ].join("\n"),
    );
  });

  it("with stat, the list alone", () => {
    expect(changeListText(CHANGES, { ...plain, stat: true })).toBe(
      "added    +2 -0 a.txt\nmodified +2 -1 old.txt\ndeleted  +0 -0 gone.bin\n",
    );
  });

  it("says there is nothing, how many files were not listed, and which diffs were cut", () => {
    expect(changeListText({ files: [] }, plain)).toBe("no changes\n");
    const cut: SessionChangesView = {
      files: [
        {
          path: "big.txt",
          status: "added",
          additions: 9000,
          deletions: 0,
          patch: "+x\n",
          patchTruncated: true,
        },
        { path: "late.txt", status: "added", additions: 1, deletions: 0, patchTruncated: true },
      ],
      moreFiles: 3,
    };
    expect(changeListText(cut, { ...plain, stat: true })).toBe(
      "added    +9000 -0 big.txt\nadded    +1 -0 late.txt\n… and 3 more files\n",
    );
    expect(changeListText(cut, plain)).toContain("+x\n(diff cut short)\n\n");
    expect(changeListText(cut, plain)).toContain(
      "late.txt\n(no diff: past the sidecar's bound on diffs)\n",
    );
  });

  it("cannot be made to drive the terminal by a path or a diff (model output)", () => {
    const hostile: SessionChangesView = {
      files: [
        {
          path: "a\u001b]0;pwned\u0007.txt\nadded +0 -0 fake.txt",
          status: "modified",
          additions: 1,
          deletions: 1,
          patch: "@@ -1 +1 @@\n-x\u001b[2J\n+y\r\u001b[1A\n",
        },
      ],
    };
    const text = changeListText(hostile, plain);
    expect(text).toBe("modified +1 -1 a.txt added +0 -0 fake.txt\n@@ -1 +1 @@\n-x\n+y\n");
  });

  it("colours the status, the counts and the diff's lines for a terminal", () => {
    const text = changeListText(
      { files: [CHANGES.files[1] as SessionChangesView["files"][number]] },
      {
        stat: false,
        color: true,
      },
    );
    const [line, , , hunk, context, removed, added] = text.split("\n");
    expect(line).toBe(
      `${ANSI.yellow}modified${RESET} ${ANSI.green}+2${RESET} ${ANSI.red}-1${RESET} old.txt`,
    );
    expect(hunk).toBe(`${ANSI.cyan}@@ -1,2 +1,3 @@${RESET}`);
    expect(context).toBe(" a");
    expect(removed).toBe(`${ANSI.red}-b${RESET}`);
    expect(added).toBe(`${ANSI.green}+B${RESET}`);
  });
});
