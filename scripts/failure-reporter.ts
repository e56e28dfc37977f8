/**
 * A vitest reporter that writes what failed (each failed test, each file that failed outside
 * its tests, each error outside any test) as JSON to the file `OCB_FAILURE_REPORT` names, for
 * `npm test` to print after the tiers (scripts/tier-failures.ts). vitest's own JSON reporter
 * loses a timeout's message ("STACK_TRACE_ERROR") and the errors outside tests.
 */
import { writeFileSync } from "node:fs";
import type { Reporter, TestModule } from "vitest/node";
import {
  FAILURE_REPORT_ENV,
  failureOf,
  type ReportedError,
  type TierFailure,
} from "./tier-failures.js";

export default class FailureReporter implements Reporter {
  onTestRunEnd(
    modules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<ReportedError>,
  ): void {
    const file = process.env[FAILURE_REPORT_ENV];
    if (file === undefined || file === "") return;
    const failures: TierFailure[] = [];
    for (const module of modules) {
      const where = module.relativeModuleId;
      for (const error of module.errors()) failures.push(failureOf(where, undefined, [error]));
      for (const test of module.children.allTests("failed")) {
        const result = test.result();
        if (result.state === "failed")
          failures.push(failureOf(where, test.fullName, result.errors));
      }
    }
    for (const error of unhandledErrors) {
      failures.push(failureOf("(outside any test)", undefined, [error]));
    }
    writeFileSync(file, JSON.stringify(failures));
  }
}
