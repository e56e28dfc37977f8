/**
 * What failed in a tier, in a few lines, from vitest's JSON report. `npm test` prints it after
 * all the tiers, just above their wall times: a CI log is often read from its end (the landing
 * CI shows only its last lines), and the integration tier's output is thousands of lines long,
 * so a failure far up in it was once all but invisible.
 */
import { relative } from "node:path";

/** The parts of vitest's JSON reporter output read here. */
export interface VitestJsonReport {
  testResults: {
    name: string;
    status: string;
    message: string;
    assertionResults: { fullName: string; status: string; failureMessages: string[] }[];
  }[];
}

export interface TierFailure {
  /** The test file, relative to the project. */
  file: string;
  /** The test's name with its describe blocks, or undefined when the file itself failed. */
  test: string | undefined;
  /** The first lines of the error, without the frames outside the project's code. */
  message: string;
}

/** Lines of one error kept in the summary: enough for the assertion and where it was. */
const MESSAGE_LINES = 12;

/** The failed tests of a report, and the files that failed outside any test (a hook, an import). */
export function tierFailures(report: VitestJsonReport, root: string): TierFailure[] {
  const failures: TierFailure[] = [];
  for (const file of report.testResults) {
    const name = relative(root, file.name);
    const failedTests = file.assertionResults.filter((test) => test.status === "failed");
    for (const test of failedTests) {
      failures.push({ file: name, test: test.fullName, message: shortened(test.failureMessages) });
    }
    if (file.status === "failed" && file.message !== "") {
      failures.push({ file: name, test: undefined, message: shortened([file.message]) });
    }
  }
  return failures;
}

function shortened(messages: string[]): string {
  const lines = messages
    .join("\n")
    .split("\n")
    .filter((line) => !isForeignFrame(line) && line.trim() !== "");
  const kept = lines.slice(0, MESSAGE_LINES);
  if (lines.length > kept.length) kept.push(`    … ${lines.length - kept.length} more lines`);
  return kept.join("\n");
}

/** A stack frame outside the project's code: vitest's runner, Node's internals, a Promise. */
function isForeignFrame(line: string): boolean {
  return /^\s+at /.test(line) && /node_modules|node:internal|<anonymous>/.test(line);
}

/** The summary's lines for one tier; `exitCode` says whether the tier failed at all. */
export function formatTierFailures(
  tier: string,
  exitCode: number,
  failures: TierFailure[] | undefined,
): string[] {
  if (exitCode === 0) return [];
  if (failures === undefined || failures.length === 0) {
    return [
      `${tier}: exit ${exitCode} with no failed test in its report — an error outside the tests ` +
        "(an unhandled error, a global setup, a process left running): see the tier's output above",
    ];
  }
  const lines = [`${tier}: ${failures.length} failed`];
  for (const failure of failures) {
    lines.push(`  ✗ ${failure.file}${failure.test === undefined ? "" : ` > ${failure.test}`}`);
    lines.push(...failure.message.split("\n").map((line) => `      ${line}`));
  }
  return lines;
}
