/** The summary of what failed that `npm test` prints after its tiers (scripts/tier-failures.ts). */
import { expect, it } from "vitest";
import { formatTierFailures, tierFailures } from "../scripts/tier-failures.js";

const report = {
  testResults: [
    {
      name: "/repo/test/e2e/passing.test.ts",
      status: "passed",
      message: "",
      assertionResults: [{ fullName: "works", status: "passed", failureMessages: [] }],
    },
    {
      name: "/repo/test/e2e/relay.test.ts",
      status: "failed",
      message: "",
      assertionResults: [
        {
          fullName: "the relay > resumes after a cut",
          status: "failed",
          failureMessages: [
            "AssertionError: expected 8 to be 10\n" +
              "    at /repo/test/e2e/relay.test.ts:42:7\n" +
              "    at new Promise (<anonymous>)\n" +
              "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)\n" +
              "    at file:///repo/node_modules/@vitest/runner/dist/index.js:1:1",
          ],
        },
        { fullName: "the relay > pairs", status: "passed", failureMessages: [] },
      ],
    },
    {
      name: "/repo/test/e2e/hook.test.ts",
      status: "failed",
      message: "Error: Hook timed out in 120000ms",
      assertionResults: [],
    },
  ],
};

it("names each failed test and each file that failed outside its tests, with where", () => {
  const failures = tierFailures(report, "/repo");
  expect(failures).toEqual([
    {
      file: "test/e2e/relay.test.ts",
      test: "the relay > resumes after a cut",
      message: "AssertionError: expected 8 to be 10\n    at /repo/test/e2e/relay.test.ts:42:7",
    },
    {
      file: "test/e2e/hook.test.ts",
      test: undefined,
      message: "Error: Hook timed out in 120000ms",
    },
  ]);
  expect(formatTierFailures("integration", 1, failures)).toEqual([
    "integration: 2 failed",
    "  ✗ test/e2e/relay.test.ts > the relay > resumes after a cut",
    "      AssertionError: expected 8 to be 10",
    "          at /repo/test/e2e/relay.test.ts:42:7",
    "  ✗ test/e2e/hook.test.ts",
    "      Error: Hook timed out in 120000ms",
  ]);
});

it("keeps a long error to its first lines", () => {
  const long = Array.from({ length: 40 }, (_, line) => `line ${line}`).join("\n");
  const [failure] = tierFailures(
    {
      testResults: [
        {
          name: "/repo/a.test.ts",
          status: "failed",
          message: "",
          assertionResults: [{ fullName: "a", status: "failed", failureMessages: [long] }],
        },
      ],
    },
    "/repo",
  );
  const lines = failure?.message.split("\n") ?? [];
  expect(lines).toHaveLength(13);
  expect(lines.at(-1)).toBe("    … 28 more lines");
});

it("says so when a tier failed with no failed test in its report, and nothing when it passed", () => {
  expect(formatTierFailures("browser", 0, [])).toEqual([]);
  const [line] = formatTierFailures("integration", 1, undefined);
  expect(line).toMatch(/^integration: exit 1 with no failed test in its report/);
  expect(formatTierFailures("integration", 1, [])).toHaveLength(1);
});
