/**
 * The test tiers: which files each one runs, its bound per test and hook, and what it sets up.
 * The tier of a file shows in its path: `*.int.test.ts` (beside the code, or at the root of
 * test/) and the folders test/e2e, test/reliability, test/postgres are integration tests,
 * test/browser the browser tier, test/package the package tier, every other test a unit test.
 * test/tiers.test.ts checks that each test file is in exactly one tier.
 */

export type TierName = "unit" | "integration" | "browser" | "package";

export interface Tier {
  readonly name: TierName;
  readonly include: readonly string[];
  readonly exclude: readonly string[];
  /** A safety net, never an assertion: a test that needs longer is in the wrong tier. */
  readonly timeoutMs: number;
  readonly setupFiles: readonly string[];
  readonly globalSetup: readonly string[];
}

/** The suffix that makes a test beside the code an integration test. */
export const INTEGRATION_SUFFIX = ".int.test.ts";

export const TIERS: readonly Tier[] = [
  {
    name: "unit",
    include: [
      "src/**/*.test.ts",
      "web/src/**/*.test.ts",
      "test/*.test.ts",
      "test/replay/**/*.test.ts",
    ],
    exclude: [`**/*${INTEGRATION_SUFFIX}`],
    timeoutMs: 10_000,
    // Starting a process throws there (the tier's rule, enforced).
    setupFiles: ["test/setup/no-processes.ts"],
    globalSetup: [],
  },
  {
    name: "integration",
    include: [
      `src/**/*${INTEGRATION_SUFFIX}`,
      `test/*${INTEGRATION_SUFFIX}`,
      "test/e2e/**/*.test.ts",
      "test/reliability/**/*.test.ts",
      "test/postgres/**/*.test.ts",
    ],
    exclude: [],
    timeoutMs: 120_000,
    setupFiles: [],
    // One embedded Postgres for the run; each file gets fresh databases on it.
    globalSetup: ["test/setup/shared-postgres.ts"],
  },
  {
    name: "browser",
    include: ["test/browser/**/*.test.ts"],
    exclude: [],
    timeoutMs: 120_000,
    setupFiles: [],
    // Chromium unpacked once, before the workers race to unpack it each.
    globalSetup: ["test/setup/chromium.ts"],
  },
  {
    name: "package",
    include: ["test/package/**/*.test.ts"],
    exclude: [],
    timeoutMs: 120_000,
    setupFiles: [],
    // One build of the package, made in a copy of the checkout, for every test of the tier.
    globalSetup: ["test/setup/package-build.ts"],
  },
];
