/**
 * The unit tier's rule, enforced: a unit test starts no process. Every way `node:child_process`
 * has of starting one throws, naming the rule and where such a test belongs, so that a test that
 * needs OpenCode, Postgres, the CLI or a build fails at once instead of slowing the fast tier.
 *
 * The module object is patched and `syncBuiltinESMExports` makes ESM named imports
 * (`import { spawn } from "node:child_process"`) see the patch too.
 */
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";

/** The functions of `node:child_process` that start a process. */
export const PROCESS_STARTERS = [
  "spawn",
  "spawnSync",
  "exec",
  "execSync",
  "execFile",
  "execFileSync",
  "fork",
] as const;

/** What a unit test that starts a process is told. */
export function tierRuleMessage(starter: string): string {
  return (
    `child_process.${starter}: a unit test starts no process (CONTRIBUTING.md, "The tests"). ` +
    `A test that needs OpenCode, Postgres, the CLI or any subprocess is an integration test: ` +
    `name it *.int.test.ts (or put it under test/e2e/), or under test/package/ if it needs the build.`
  );
}

const patchable = childProcess as unknown as Record<string, unknown>;
for (const starter of PROCESS_STARTERS) {
  patchable[starter] = () => {
    throw new Error(tierRuleMessage(starter));
  };
}
syncBuiltinESMExports();
