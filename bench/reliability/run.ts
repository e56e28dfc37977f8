/**
 * `npm run reliability`: the reliability suite. Runs the named scenarios (all by default,
 * `--only fuzz,soak` for some) and prints one Markdown table, one row each (the scenarios not
 * built yet listed as such), then each row's notes. Exits 1 when a scenario fails.
 * Options: --only a,b; --short (the short variants, as `npm test` runs them); --seed N
 * (default 17: the fuzzer's, printed in the notes, so that a run can be repeated).
 */
import { parseArgs } from "node:util";
import { isPlanned, type ScenarioContext, type ScenarioRow } from "./scenario.js";
import { SUITE } from "./scenarios/index.js";
import { createSuiteFiles, scenarioContext } from "./suite-files.js";
import { type Outcome, reliabilityTable } from "./table.js";

const DEFAULT_SEED = 17;
const RSS_SAMPLE_MS = 100;

function usage(message: string): never {
  console.error(`npm run reliability: ${message}`);
  console.error(`scenarios: ${SUITE.map((entry) => entry.name).join(", ")}`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    only: { type: "string" },
    short: { type: "boolean", default: false },
    seed: { type: "string", default: String(DEFAULT_SEED) },
  },
});
const seed = Number(values.seed);
if (!Number.isSafeInteger(seed)) usage(`--seed wants an integer, got ${values.seed}`);
const names = values.only?.split(",").map((name) => name.trim()) ?? SUITE.map((e) => e.name);
const unknown = names.filter((name) => !SUITE.some((entry) => entry.name === name));
if (unknown.length > 0) usage(`no scenario named ${unknown.join(", ")}`);

/** The highest RSS seen while `run` runs: sampled on a timer and whenever the scenario asks. */
async function withPeakRss<T>(run: (sample: () => void) => Promise<T>): Promise<[T, number]> {
  let peak = process.memoryUsage.rss();
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage.rss());
  };
  const timer = setInterval(sample, RSS_SAMPLE_MS);
  try {
    const result = await run(sample);
    sample();
    return [result, peak];
  } finally {
    clearInterval(timer);
  }
}

async function runEntry(name: string): Promise<Outcome> {
  const entry = SUITE.find((candidate) => candidate.name === name);
  if (entry === undefined) throw new Error(`no scenario ${name}`);
  if (isPlanned(entry)) return { entry };
  const [row, peakRssBytes] = await withPeakRss(async (sampleRss) => {
    const context: ScenarioContext = scenarioContext(suiteFiles, name, {
      short: values.short,
      seed,
      note: (line) => console.error(`[reliability] ${line}`),
      sampleRss,
    });
    try {
      return await entry.run(context);
    } catch (error) {
      // A scenario that throws is a failed row, with the error, not the end of the suite.
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      return {
        load: "—",
        faultsInjected: 0,
        crashes: 1,
        passed: false,
        notes: [`the scenario threw: ${message}`],
      } satisfies Omit<ScenarioRow, "scenario" | "peakRssBytes">;
    }
  });
  return { entry, row: { scenario: entry.name, peakRssBytes, ...row } };
}

const suiteFiles = createSuiteFiles();
// Removed when the run exits (a failing scenario included); each scenario stops its own processes.
process.once("exit", () => suiteFiles.remove());
const outcomes: Outcome[] = [];
for (const name of names) outcomes.push(await runEntry(name));
console.log(`\nreliability${values.short ? " (short variants)" : ""}:`);
for (const line of reliabilityTable(outcomes)) console.log(line);
const failed = outcomes.filter((outcome) => outcome.row !== undefined && !outcome.row.passed);
if (failed.length > 0) {
  console.log(
    `\n${failed.length} scenario(s) failed: ${failed.map((o) => o.entry.name).join(", ")}`,
  );
  process.exitCode = 1;
}
