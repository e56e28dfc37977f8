/**
 * The package tier's global setup: one build of the package for the run, made by
 * `npm run build` (what `prepack` runs) in a copy of the checkout (see checkout-copy.ts), and
 * named to the tests with `OCB_TEST_PACKAGE_BUILD`. The pack test packs that copy and the
 * snippet test type-checks against its declarations, instead of building each. The build's
 * process group is killed if this process ends first (Ctrl-C included).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { copyOfCheckout, envOutsideNpm } from "../support/checkout-copy.js";
import { killOnExit } from "../support/kill-on-exit.js";
import { PACKAGE_BUILD_ENV } from "../support/package-build.js";

/** A bound on the build, not a speed check: tsc and vite on a loaded two-core machine. */
const BUILD_BOUND_MS = 10 * 60_000;

export async function setup(): Promise<() => void> {
  const work = mkdtempSync(join(tmpdir(), "ocb-package-build-"));
  const removeWork = (): void => rmSync(work, { recursive: true, force: true });
  try {
    const checkout = copyOfCheckout(join(work, "checkout"));
    await build(checkout);
    process.env[PACKAGE_BUILD_ENV] = checkout;
  } catch (error) {
    removeWork();
    throw error;
  }
  return () => {
    delete process.env[PACKAGE_BUILD_ENV];
    removeWork();
  };
}

function build(checkout: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "build"], {
      cwd: checkout,
      env: envOutsideNpm({}),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // the group is gone already
      }
    };
    const exitHook = killOnExit(killGroup);
    const bound = setTimeout(killGroup, BUILD_BOUND_MS);
    let output = "";
    const keep = (chunk: Buffer): void => {
      output += chunk.toString();
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(bound);
      killGroup();
      exitHook.dispose();
      if (code === 0) resolve();
      else reject(new Error(`npm run build failed (${code ?? signal}) in ${checkout}:\n${output}`));
    });
  });
}
