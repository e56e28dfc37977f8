/** The suite's table, in Markdown (docs/reliability.md shows it as printed), and its notes. */
import { isPlanned, type ScenarioRow, type SuiteEntry } from "./scenario.js";

/** A scenario's outcome: its row, or not built. */
export type Outcome = { entry: SuiteEntry; row?: ScenarioRow };

const COLUMNS = [
  "scenario",
  "load",
  "faults injected",
  "turns ended exactly once",
  "durable events lost",
  "duplicated",
  "crashes",
  "leaked processes",
  "peak RSS",
  "result",
];

const count = (value: number | undefined): string =>
  value === undefined ? "—" : value.toLocaleString("en-US");

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
}

function cells(outcome: Outcome): string[] {
  const { entry, row } = outcome;
  if (row === undefined) {
    const status = isPlanned(entry) ? "not built" : "not run";
    return [entry.name, "—", "—", "—", "—", "—", "—", "—", "—", status];
  }
  const turns = row.turnsEndedOnce;
  return [
    row.scenario,
    row.load,
    count(row.faultsInjected),
    turns === undefined ? "—" : `${count(turns.once)} of ${count(turns.started)}`,
    count(row.durableLost),
    count(row.duplicated),
    count(row.crashes),
    count(row.leakedProcesses),
    mib(row.peakRssBytes),
    row.passed ? "pass" : "FAIL",
  ];
}

/** The table and, under it, each run scenario's notes. */
export function reliabilityTable(outcomes: readonly Outcome[]): string[] {
  const line = (values: readonly string[]) => `| ${values.join(" | ")} |`;
  const notes = outcomes.flatMap(({ row }) =>
    row === undefined || row.notes.length === 0
      ? []
      : [`- ${row.scenario}: ${row.notes.join("; ")}`],
  );
  return [
    line(COLUMNS),
    line(COLUMNS.map(() => "---")),
    ...outcomes.map((outcome) => line(cells(outcome))),
    ...(notes.length === 0 ? [] : ["", ...notes]),
  ];
}
