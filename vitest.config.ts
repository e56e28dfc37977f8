import { configDefaults, defineConfig } from "vitest/config";
import { TIERS } from "./test/tiers.js";

/**
 * The tests in four tiers (vitest projects), one per kind of cost: `unit` starts no process,
 * `integration` runs the real OpenCode, Postgres and the CLI, `browser` the built chat in
 * Chromium, `package` what needs the build or the packed package. Which file goes where is
 * `test/tiers.ts`; `npm test` runs them one after the other (scripts/test-tiers.ts).
 */
export default defineConfig({
  test: {
    // The root's global setup runs once per run, whatever tiers run: the data directory and
    // the check that no process a test started is left alive.
    globalSetup: ["test/global-setup.ts"],
    projects: TIERS.map((tier) => ({
      test: {
        name: tier.name,
        include: [...tier.include],
        exclude: [...configDefaults.exclude, ...tier.exclude],
        // Two cores are shared: the tiers that start real servers keep the parallelism low.
        maxWorkers: 2,
        testTimeout: tier.timeoutMs,
        hookTimeout: tier.timeoutMs,
        setupFiles: [...tier.setupFiles],
        globalSetup: [...tier.globalSetup],
      },
    })),
  },
});
