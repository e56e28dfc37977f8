/**
 * The issues' goals, each beside the figure the bench measured for it: every figure function
 * records its goals here as it prints its lines, and `npm run bench` ends with one table of
 * them all (docs/performance.md shows it), so that "which goals are met" is read in one place.
 */

export interface GoalRecord {
  /** The bench figure it belongs to: `(a)`, `(i)`, … */
  figure: string;
  /** What is measured, in words: "normaliser throughput against JSON.parse". */
  what: string;
  /** The figure as measured: "0.41x", "23.7 KiB". */
  measured: string;
  /** The goal as the issue states it: "≥ 0.5x". */
  goal: string;
  met: boolean;
  /**
   * When something other than the bridge keeps the goal out of reach (OpenCode itself, the
   * machine): the measurement in the same run that shows it (a raw baseline's figure).
   */
  limitedBy?: { by: string; shownBy: string };
}

const records: GoalRecord[] = [];

/** Records a goal and returns "met" / "NOT met" for the figure's own line. */
export function recordGoal(record: GoalRecord): string {
  records.push(record);
  return metText(record.met);
}

export function metText(met: boolean): string {
  return met ? "met" : "NOT met";
}

/** The goals recorded so far, as a table (Markdown: docs/performance.md shows it as printed). */
export function goalTable(): string[] {
  if (records.length === 0) return [];
  const rows = records.map(
    (record) =>
      `| ${record.figure} | ${record.what} | ${record.measured} | ${record.goal} | ` +
      `${metText(record.met)}${record.limitedBy === undefined ? "" : ` (${record.limitedBy.by}'s limit: ${record.limitedBy.shownBy})`} |`,
  );
  const met = records.filter((record) => record.met).length;
  return [
    "",
    `goals: ${met} of ${records.length} met`,
    "| figure | what | measured | goal | |",
    "|---|---|---|---|---|",
    ...rows,
  ];
}
