/**
 * A home directory with no dotfiles, for the OpenCode servers tests start. The terminal's PTY
 * runs a login shell (`bash -l`), which reads the machine user's `~/.profile` and `~/.bashrc`:
 * on the CI machine those run `pyenv init`, whose `rehash` waits 60 s on a lock file that a
 * killed shell had left behind, and every terminal test of a clean clone failed waiting for its
 * prompt. A test's shells must depend on nothing in the real home, nor write to it (history).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

let home: string | undefined;

/** The directory (made once per test process, removed when it exits). */
export function shellHome(): string {
  if (home === undefined) {
    const made = mkdtempSync(join(tmpdir(), "ocb-test-home-"));
    process.on("exit", () => rmSync(made, { recursive: true, force: true }));
    home = made;
  }
  return home;
}
