import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_PATCH_CHARS } from "../file-changes.js";
import { SnapshotTrees } from "./snapshot-trees.js";

/**
 * A data home laid out as OpenCode 1.18.33 keeps its snapshots (`opencode/snapshot/<project>/
 * <worktree>/`, a git dir of trees of the working tree), filled with real git: each `tree()`
 * writes the files given to the work tree and records a tree of it, as OpenCode does at each
 * step's start and end.
 */
const home = mkdtempSync(join(tmpdir(), "ocb-snapshot-trees-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const work = join(home, "work");
const gitDir = join(home, "opencode", "snapshot", "project-id", "worktree-hash");
mkdirSync(work);
mkdirSync(gitDir, { recursive: true });
const git = (...args: string[]) =>
  execFileSync("git", [`--git-dir=${gitDir}`, `--work-tree=${work}`, ...args], {
    encoding: "utf8",
  }).trim();
git("init", "-q");
// Another project's git dir, looked through first and found wanting.
mkdirSync(join(home, "opencode", "snapshot", "another", "worktree"), { recursive: true });
execFileSync("git", [
  "init",
  "-q",
  "--bare",
  join(home, "opencode", "snapshot", "another", "worktree"),
]);

function tree(files: Record<string, string | null>): string {
  for (const [name, content] of Object.entries(files)) {
    if (content === null) rmSync(join(work, name));
    else writeFileSync(join(work, name), content);
  }
  git("add", "--all");
  return git("write-tree");
}

const t0 = tree({ "kept.txt": "a\nb\n", "gone.txt": "x\n" });
const t1 = tree({ "kept.txt": "a\nB\nc\n" });
const t2 = tree({ "new file.txt": "one\ntwo\n", "gone.txt": null, "kept.txt": "a\nB\nC\n" });

describe("SnapshotTrees", () => {
  const trees = new SnapshotTrees(home);

  it("gives what a span of steps did, not what came before it", async () => {
    const second = await trees.diff(
      { from: t1, to: t2 },
      ["kept.txt", "new file.txt", "gone.txt"],
      true,
    );
    expect(second?.map(({ patch: _patch, ...file }) => file)).toEqual([
      { path: "gone.txt", status: "deleted", additions: 0, deletions: 1 },
      { path: "kept.txt", status: "modified", additions: 1, deletions: 1 },
      { path: "new file.txt", status: "added", additions: 2, deletions: 0 },
    ]);
    const patch = Object.fromEntries(second?.map((file) => [file.path, file.patch]) ?? []);
    expect(patch["kept.txt"]).toMatch(/^-c$/m);
    expect(patch["kept.txt"]).toMatch(/^\+C$/m);
    // The first step's change (b → B) is not the second's.
    expect(patch["kept.txt"]).not.toMatch(/^-b$/m);
    expect(patch["new file.txt"]).toMatch(/^\+two$/m);
    // Both steps at once.
    const both = await trees.diff({ from: t0, to: t2 }, ["kept.txt"], false);
    expect(both).toEqual([{ path: "kept.txt", status: "modified", additions: 2, deletions: 1 }]);
  });

  it("names only the paths asked for, taken literally", async () => {
    expect(await trees.diff({ from: t1, to: t2 }, ["*.txt"], false)).toEqual([]);
    expect(await trees.diff({ from: t1, to: t2 }, ["gone.txt"], false)).toEqual([
      { path: "gone.txt", status: "deleted", additions: 0, deletions: 1 },
    ]);
  });

  it("gives undefined for trees it does not hold and for names that are not trees", async () => {
    expect(await trees.diff({ from: "0".repeat(40), to: t2 }, ["kept.txt"], false)).toBeUndefined();
    expect(
      await trees.diff({ from: "--output=/tmp/x", to: t2 }, ["kept.txt"], false),
    ).toBeUndefined();
    expect(
      await new SnapshotTrees(work).diff({ from: t1, to: t2 }, ["kept.txt"], false),
    ).toBeUndefined();
  });

  it("runs no diff driver the snapshot git dir's config names", async () => {
    // An agent able to write OpenCode's data could plant one; it must never run.
    const marker = join(home, "driver-ran");
    execFileSync("git", [`--git-dir=${gitDir}`, "config", "diff.external", `touch ${marker} #`]);
    writeFileSync(join(gitDir, "info", "attributes"), "* diff=evil\n");
    execFileSync("git", [
      `--git-dir=${gitDir}`,
      "config",
      "diff.evil.textconv",
      `touch ${marker};cat`,
    ]);
    try {
      const diff = await trees.diff({ from: t1, to: t2 }, ["kept.txt"], true);
      expect(diff?.[0]?.patch).toMatch(/^\+C$/m);
      expect(() => execFileSync("test", ["-e", marker])).toThrow();
    } finally {
      execFileSync("git", [`--git-dir=${gitDir}`, "config", "--unset", "diff.external"]);
      execFileSync("git", [`--git-dir=${gitDir}`, "config", "--unset", "diff.evil.textconv"]);
      rmSync(join(gitDir, "info", "attributes"));
    }
  });

  it("gives each file's diff apart, a long one whole (the caller bounds it)", async () => {
    const long = Array.from({ length: 20_000 }, (_, index) => `line ${index}`).join("\n");
    const before = tree({ "long.txt": "start\n" });
    const after = tree({ "long.txt": long, "kept.txt": "changed\n" });
    const diff = await trees.diff({ from: before, to: after }, ["long.txt", "kept.txt"], true);
    expect(diff?.map((file) => file.path)).toEqual(["kept.txt", "long.txt"]);
    expect(diff?.[0]?.patch).toMatch(/^diff --git a\/kept.txt/);
    expect(diff?.[0]?.patch).not.toMatch(/long/);
    expect(diff?.[1]?.patch?.length).toBeGreaterThan(MAX_PATCH_CHARS);
  });
});
