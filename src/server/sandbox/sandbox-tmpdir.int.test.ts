/**
 * Really tried in bubblewrap: a `TMPDIR` inside `/tmp` (pam_tmpdir's `/tmp/user/UID`, a test
 * run's own directory) exists inside the sandbox, private and empty. Under the sandbox's empty
 * `/tmp` it was gone: OpenCode, which unpacks its native libraries there, and the agent's
 * `mktemp` both inherit it.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { Sandbox } from "./sandbox.js";

const base = mkdtempSync("/tmp/ocb-sandbox-tmpdir-");
const tmpdir = join(base, "user", "1000");
const directory = join(base, "project");
mkdirSync(tmpdir, { recursive: true });
mkdirSync(directory);
writeFileSync(join(tmpdir, "outside-secret.txt"), "not for the agent\n");
const savedTmpdir = process.env.TMPDIR;
afterAll(() => {
  process.env.TMPDIR = savedTmpdir;
  rmSync(base, { recursive: true, force: true });
});

it("a TMPDIR inside /tmp exists inside the sandbox, empty, and mktemp works there", async () => {
  process.env.TMPDIR = tmpdir;
  const sandbox = await Sandbox.prepare("workspace-write", {
    directory,
    binary: "/bin/sh",
    ownState: [],
  });
  if (sandbox === undefined) throw new Error("the sandbox was not made");
  const script = 'made=$(mktemp) && echo "made $made" && ls -A "$TMPDIR"';
  const command = sandbox.wrap("/bin/sh", ["-c", script], directory);
  const run = spawnSync(command.binary, command.args, {
    encoding: "utf8",
    env: { ...process.env, TMPDIR: tmpdir },
    timeout: 30_000,
  });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  const [made, ...listed] = run.stdout.trim().split("\n");
  expect(made).toMatch(new RegExp(`^made ${tmpdir}/tmp\\.`));
  // Only the file just made: the host's TMPDIR (and what it holds) is not the agent's.
  expect(listed).toEqual([made?.slice(`made ${tmpdir}/`.length)]);
});
