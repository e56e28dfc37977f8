import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "web/src/**/*.test.ts"],
    // End-to-end tests start real opencode servers; two cores are shared, so keep the
    // parallelism low and the per-test bound generous (time limits are not assertions).
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    globalSetup: ["test/global-setup.ts"],
  },
});
