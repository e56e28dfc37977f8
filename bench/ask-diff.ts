/**
 * (u) An ask's diff, computed while the rest of the bridge runs: the longest the event loop was
 * blocked while the diff of a 10,000-line file was made or given up, and how long that took,
 * for a whole rewrite (every line new: the worst case the model can ask for) and a one-line
 * edit (the common case). Baseline in the same run: the event loop's longest block over the
 * same time with nothing to do (what the machine itself costs).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { diffOfToolCall } from "../src/backends/permission-diff.js";
import { recordGoal } from "./goals.js";
import { formatMs, median } from "./stats.js";

export interface AskDiffCase {
  name: string;
  /** Medians over the runs. */
  longestBlockMs: number;
  doneMs: number;
  outcome: string;
}

export interface AskDiffResult {
  runs: number;
  idleBlockMs: number;
  cases: AskDiffCase[];
}

const LINES = 10_000;
const lines = (prefix: string) =>
  Array.from({ length: LINES }, (_, index) => `${prefix} line ${index}`).join("\n");

/** The longest event-loop block (ms) while `work` runs, and how long it ran. */
async function measured<T>(
  work: () => Promise<T>,
): Promise<{ blockMs: number; ms: number; value: T }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const started = performance.now();
  const value = await work();
  const ms = performance.now() - started;
  histogram.disable();
  return { blockMs: histogram.max / 1e6, ms, value };
}

export async function benchAskDiff(options: { runs: number }): Promise<AskDiffResult> {
  const directory = mkdtempSync(join(tmpdir(), "ocb-bench-diff-"));
  try {
    const cases: AskDiffCase[] = [];
    const idle: number[] = [];
    for (const [name, input] of [
      ["whole rewrite", { path: "big.txt", content: lines("new") }],
      ["one-line edit", { path: "big.txt", oldString: "old line 5000\n", newString: "x\n" }],
    ] as const) {
      const blocks: number[] = [];
      const times: number[] = [];
      let outcome = "";
      for (let run = 0; run < options.runs; run++) {
        writeFileSync(join(directory, "big.txt"), lines("old"));
        const tool = "content" in input ? "write" : "edit";
        const { blockMs, ms, value } = await measured(() => diffOfToolCall(directory, tool, input));
        blocks.push(blockMs);
        times.push(ms);
        outcome = value?.diff !== undefined ? "diff" : `omitted (${value?.diffOmitted})`;
        idle.push((await measured(() => sleep(ms))).blockMs);
      }
      cases.push({ name, longestBlockMs: median(blocks), doneMs: median(times), outcome });
    }
    return { runs: options.runs, idleBlockMs: median(idle), cases };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

export function askDiffLines(result: AskDiffResult): string[] {
  const lines = [
    `(u) an ask's diff of a ${LINES.toLocaleString("en")}-line file, median of ${result.runs} runs (idle event loop's longest block over the same time: ${formatMs(result.idleBlockMs)}):`,
  ];
  for (const entry of result.cases) {
    const block = recordGoal({
      figure: "(u)",
      what: `ask diff, ${entry.name}: longest event-loop block`,
      measured: formatMs(entry.longestBlockMs),
      goal: "≤ 20 ms",
      met: entry.longestBlockMs <= 20,
    });
    const done = recordGoal({
      figure: "(u)",
      what: `ask diff, ${entry.name}: ready or omitted`,
      measured: formatMs(entry.doneMs),
      goal: "≤ 500 ms",
      met: entry.doneMs <= 500,
    });
    lines.push(
      `    ${entry.name}: ${entry.outcome}; longest block ${formatMs(entry.longestBlockMs)} (goal ≤ 20 ms: ${block}), done in ${formatMs(entry.doneMs)} (goal ≤ 500 ms: ${done})`,
    );
  }
  return lines;
}
