/** The summary of what failed that `npm test` prints after its tiers (scripts/tier-failures.ts). */
import { expect, it } from "vitest";
import { failureOf, formatTierFailures } from "../scripts/tier-failures.js";

it("keeps an error's name, message and the project's frames, and names the test", () => {
  const failure = failureOf("test/e2e/relay.test.ts", "the relay > resumes after a cut", [
    {
      name: "AssertionError",
      message: "expected 8 to be 10",
      stack:
        "AssertionError: expected 8 to be 10\n" +
        "    at /repo/test/e2e/relay.test.ts:42:7\n" +
        "    at new Promise (<anonymous>)\n" +
        "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)\n" +
        "    at file:///repo/node_modules/@vitest/runner/dist/index.js:1:1",
    },
  ]);
  expect(failure).toEqual({
    file: "test/e2e/relay.test.ts",
    test: "the relay > resumes after a cut",
    message: "AssertionError: expected 8 to be 10\n    at /repo/test/e2e/relay.test.ts:42:7",
  });
  const hook = failureOf("test/e2e/hook.test.ts", undefined, [
    // A timeout's stack says only STACK_TRACE_ERROR: the message is what tells.
    { name: "Error", message: "Hook timed out in 120000ms.", stack: "Error: STACK_TRACE_ERROR" },
  ]);
  expect(formatTierFailures("integration", 1, [failure, hook])).toEqual([
    "integration: 2 failed",
    "  ✗ test/e2e/relay.test.ts > the relay > resumes after a cut",
    "      AssertionError: expected 8 to be 10",
    "          at /repo/test/e2e/relay.test.ts:42:7",
    "  ✗ test/e2e/hook.test.ts",
    "      Error: Hook timed out in 120000ms.",
  ]);
});

it("keeps a long error to its first lines", () => {
  const message = Array.from({ length: 40 }, (_, line) => `line ${line}`).join("\n");
  const lines = failureOf("a.test.ts", "a", [{ message }]).message.split("\n");
  expect(lines).toHaveLength(13);
  expect(lines[0]).toBe("Error: line 0");
  expect(lines.at(-1)).toBe("    … 28 more lines");
});

it("says so when a tier failed with no failure reported, and nothing when it passed", () => {
  expect(formatTierFailures("browser", 0, [])).toEqual([]);
  const [line] = formatTierFailures("integration", 1, undefined);
  expect(line).toMatch(/^integration: exit 1 with no failed test in its report/);
  expect(formatTierFailures("integration", 1, [])).toHaveLength(1);
});
