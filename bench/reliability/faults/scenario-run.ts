/**
 * What the scenarios that start processes share: the bridge's log written to `bridge.log` in
 * the work dir, and the processes they started counted, those left after they closed what they
 * started reported as leaked (and killed, so that a failing scenario leaves nothing either).
 */
import { join } from "node:path";
import type { Logger } from "../../../src/util/logger.js";
import type { ScenarioContext, ScenarioRow } from "../scenario.js";
import { fileLogger } from "./file-logger.js";
import { watchLeaks } from "./leak-watch.js";

type Row = Omit<ScenarioRow, "scenario" | "peakRssBytes">;

/** Runs `body` (which must close what it started before it resolves) and adds the leak count. */
export async function withProcessCount(
  context: ScenarioContext,
  body: (logger: Logger) => Promise<Row>,
): Promise<Row> {
  const leaks = watchLeaks();
  const log = fileLogger(join(context.workDir, "bridge.log"));
  try {
    const row = await body(log.logger);
    const started = leaks.started();
    const leaked = await leaks.leaked();
    const left = leaked.map((process) => process.command.slice(0, 60)).join("; ");
    return {
      ...row,
      leakedProcesses: leaked.length,
      passed: row.passed && leaked.length === 0,
      notes: [
        ...row.notes,
        `processes started ${started.all} (${started.opencode} opencode), left ${leaked.length}${leaked.length > 0 ? `: ${left}` : ""}; bridge log ${log.warnings()} warnings`,
      ],
    };
  } finally {
    leaks.stop();
    await log.close();
  }
}
