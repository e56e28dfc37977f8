/**
 * A git worktree with one commit, for the tests and benches that need OpenCode's file
 * snapshots (it keeps them only in a git worktree): undo, per-turn changes, the VCS status.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/**
 * Makes `<tmpdir>/<prefix>XXXXXX` (or `at`, made when missing) a git repository whose one
 * commit holds `files` (none: an empty commit); its path. The caller removes it.
 */
export function gitWorktree(
  prefix: string,
  files: Readonly<Record<string, string>> = {},
  at?: string,
): string {
  const directory = at ?? mkdtempSync(join(tmpdir(), prefix));
  if (at !== undefined) mkdirSync(at, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=e2e", "-c", "user.email=e2e@example.com", ...args], {
      cwd: directory,
      stdio: "ignore",
    });
  git("init", "-q");
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(directory, name)), { recursive: true });
    writeFileSync(join(directory, name), content);
  }
  git("add", "--all");
  git("commit", "-q", "--allow-empty", "-m", "start");
  return directory;
}
