/**
 * `npm run reliability`: the reliability suite. Runs the named scenarios (all by default,
 * `--only fuzz,soak` for some) and prints one Markdown table, one row each (the scenarios not
 * built yet listed as such), then each row's notes. Exits 1 when a scenario fails.
 * Options: --only a,b; --short (the short variants, as `npm test` runs them); --seed N
 * (default 17: the fuzzer's, printed in the notes, so that a run can be repeated); --keep (keep
 * the run's directory, every scenario's store, logs and files, instead of removing it at exit,
 * and print where: a failed run can then be read); --minutes N (the full soak measures N
 * minutes after its warm-up instead of 10: a long soak shows whether a slope levels off);
 * --jit on|off (the soak's child with V8's optimising compilers, as a bridge runs in
 * production, or interpreting only; run-soak.ts says why both, scenarios/soak.ts the default).
 *
 * The time budget: the whole full suite must fit in 20 minutes on 2 cores, and the issue's
 * scenarios add up to more when run one after the other (the soak alone is 10 minutes). So the
 * soak runs alongside the others (`schedule: "alongside"`, in a child process of its own whose
 * peak RSS it reports), the others one after the other, and the secrets scan last, once all
 * have written their files. The run's wall time is printed against the budget.
 */
import { parseArgs } from "node:util";
import {
  isPlanned,
  type ScenarioContext,
  type ScenarioResult,
  type SoakOptions,
  type SuiteEntry,
} from "./scenario.js";
import { SUITE } from "./scenarios/index.js";
import { runScheduled, scheduleOf } from "./schedule.js";
import { createSuiteFiles, scenarioContext } from "./suite-files.js";
import { type Outcome, reliabilityTable } from "./table.js";

const DEFAULT_SEED = 17;
const RSS_SAMPLE_MS = 100;
/** The bound on the full suite, on 2 cores. */
const BUDGET_MS = 20 * 60_000;

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
    keep: { type: "boolean", default: false },
    minutes: { type: "string" },
    jit: { type: "string" },
  },
});
const seed = Number(values.seed);
if (!Number.isSafeInteger(seed)) usage(`--seed wants an integer, got ${values.seed}`);
const names = values.only?.split(",").map((name) => name.trim()) ?? SUITE.map((e) => e.name);
const unknown = names.filter((name) => !SUITE.some((entry) => entry.name === name));
if (unknown.length > 0) usage(`no scenario named ${unknown.join(", ")}`);
const soak: SoakOptions = {};
if (values.minutes !== undefined) {
  const minutes = Number(values.minutes);
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > 24 * 60) {
    usage(`--minutes wants a whole number of minutes from 1 to 1440, got ${values.minutes}`);
  }
  soak.minutes = minutes;
}
if (values.jit !== undefined) {
  if (values.jit !== "on" && values.jit !== "off")
    usage(`--jit wants on or off, got ${values.jit}`);
  soak.jit = values.jit === "on";
}

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

async function runEntry(entry: SuiteEntry): Promise<Outcome> {
  const name = entry.name;
  if (isPlanned(entry)) return { entry };
  const startedAt = Date.now();
  const [row, peakRssBytes] = await withPeakRss(async (sampleRss) => {
    const context: ScenarioContext = scenarioContext(suiteFiles, name, {
      short: values.short,
      seed,
      note: (line) => console.error(`[reliability] ${line}`),
      sampleRss,
      soak,
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
      } satisfies ScenarioResult;
    }
  });
  const seconds = Math.round((Date.now() - startedAt) / 1000);
  console.error(`[reliability] ${name}: ${row.passed ? "pass" : "FAIL"} after ${seconds} s`);
  // A scenario that ran in a process of its own reports that process's peak; the suite's
  // would mix in the scenarios running beside it.
  return { entry, row: { scenario: entry.name, peakRssBytes, ...row } };
}

const suiteFiles = createSuiteFiles();
// Removed when the run exits (a failing scenario included), unless kept to be read; each
// scenario stops its own processes.
if (values.keep) console.error(`[reliability] the run's files are kept in ${suiteFiles.dir}`);
process.once("exit", () => {
  if (values.keep) console.log(`\nthe run's files (one directory per scenario): ${suiteFiles.dir}`);
  else suiteFiles.remove();
});
const suiteStart = Date.now();
const outcomes = await runScheduled(
  SUITE.filter((entry) => names.includes(entry.name)),
  runEntry,
);
const elapsedMs = Date.now() - suiteStart;
console.log(`\nreliability${values.short ? " (short variants)" : ""}:`);
for (const line of reliabilityTable(outcomes)) console.log(line);
const everyScenario = SUITE.every((entry) => isPlanned(entry) || names.includes(entry.name));
const overBudget = !values.short && everyScenario && elapsedMs > BUDGET_MS;
console.log(
  `\n${(elapsedMs / 60_000).toFixed(1)} min in all (${SUITE.filter(
    (e) => scheduleOf(e) === "alongside",
  )
    .map((e) => e.name)
    .join(
      ", ",
    )} alongside the others; budget of the full suite ${BUDGET_MS / 60_000} min on 2 cores${overBudget ? ": NOT met" : ""})`,
);
if (overBudget) process.exitCode = 1;
const failed = outcomes.filter((outcome) => outcome.row !== undefined && !outcome.row.passed);
if (failed.length > 0) {
  console.log(
    `\n${failed.length} scenario(s) failed: ${failed.map((o) => o.entry.name).join(", ")}`,
  );
  process.exitCode = 1;
}
