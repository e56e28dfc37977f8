/**
 * What failed in a tier, in a few lines, as scripts/failure-reporter.ts writes it. `npm test`
 * prints it after all the tiers, just above their wall times: a CI log is often read from its
 * end (the landing CI shows only its last lines), and the integration tier's output is
 * thousands of lines long, so a failure far up in it was once all but invisible.
 */

/** The environment variable that names the file scripts/failure-reporter.ts writes. */
export const FAILURE_REPORT_ENV = "OCB_FAILURE_REPORT";

/** The parts of a vitest error read here. */
export interface ReportedError {
  message: string;
  name?: string;
  stack?: string;
}

export interface TierFailure {
  /** The test file, relative to the project (or where the error came from). */
  file: string;
  /** The test's name with its describe blocks, or undefined when the file itself failed. */
  test: string | undefined;
  /** The first lines of the error, without the frames outside the project's code. */
  message: string;
}

/** Lines of one failure kept in the summary: enough for the assertion and where it was. */
const MESSAGE_LINES = 12;

/** One failure, its errors shortened to their first lines. */
export function failureOf(
  file: string,
  test: string | undefined,
  errors: readonly ReportedError[],
): TierFailure {
  return { file, test, message: shortened(errors.map(errorText)) };
}

/** The error's name and message, then the frames of its stack (which repeats them first). */
function errorText(error: ReportedError): string {
  const frames = (error.stack ?? "").split("\n").filter((line) => /^\s+at /.test(line));
  return [`${error.name ?? "Error"}: ${error.message}`, ...frames].join("\n");
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
