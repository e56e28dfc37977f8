/**
 * `npm test`'s test part: every tier (test/tiers.ts) in turn, each a `vitest run --project`,
 * then each tier's wall time and the total. One tier after the other rather than all in one
 * run: the machines have two cores that the integration tier alone keeps busy, and a tier's
 * time is then its own. Every tier runs even when one fails (CI shows all failures at once);
 * the exit code is the first failure's. Ctrl-C stops the running tier (vitest gets it from the
 * terminal and cleans up) and no further tier starts.
 *
 * The tiers run with `TMPDIR` set to a directory of the run's own, removed at its end: every
 * test process, OpenCode server, CLI, Postgres and Chromium inherits it, so what tests (and the
 * processes they kill) leave in their temp dir does not pile up in the machine's `/tmp`
 * (hundreds of directories, and 6 MB libraries OpenCode unpacks, a run). Set here rather than
 * in a global setup: vitest runs the tiers' own setups (Postgres, Chromium) before the root's.
 *
 * After the wall times come the failed tests, each with the first lines of its error
 * (scripts/failure-reporter.ts, scripts/tier-failures.ts): a CI log is read from its end.
 *
 * `npx tsx scripts/test-tiers.ts unit browser` runs those tiers only.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TIERS, type TierName } from "../test/tiers.js";
import { FAILURE_REPORT_ENV, formatTierFailures, type TierFailure } from "./tier-failures.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

interface TierRun {
  tier: TierName;
  seconds: number;
  code: number;
  /** Undefined when the tier wrote no readable report (it crashed, or was stopped). */
  failures: TierFailure[] | undefined;
}

function runTier(
  tier: TierName,
  reportFile: string,
  tmp: string,
): Promise<{ code: number; interrupted: boolean }> {
  return new Promise((resolve, reject) => {
    const reporters = ["--reporter=default", "--reporter=./scripts/failure-reporter.ts"];
    const child = spawn("npx", ["vitest", "run", "--project", tier, ...reporters], {
      cwd: ROOT,
      stdio: "inherit",
      env: { ...process.env, TMPDIR: tmp, [FAILURE_REPORT_ENV]: reportFile },
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      resolve({ code: code ?? 1, interrupted: signal === "SIGINT" || code === 130 });
    });
  });
}

function chosenTiers(args: string[]): TierName[] {
  const known = TIERS.map((tier) => tier.name);
  const unknown = args.filter((arg) => !known.includes(arg as TierName));
  if (unknown.length > 0) {
    throw new Error(`unknown tier ${unknown.join(", ")}: the tiers are ${known.join(", ")}`);
  }
  return args.length > 0 ? (args as TierName[]) : known;
}

function readFailures(reportFile: string): TierFailure[] | undefined {
  try {
    return JSON.parse(readFileSync(reportFile, "utf8")) as TierFailure[];
  } catch {
    return undefined;
  }
}

async function main(): Promise<number> {
  const tiers = chosenTiers(process.argv.slice(2));
  // The terminal's Ctrl-C reaches vitest too: this script waits for it to clean up.
  let interrupted = false;
  process.on("SIGINT", () => {
    interrupted = true;
  });
  const runs: TierRun[] = [];
  const tmp = mkdtempSync(join(tmpdir(), "ocb-test-run-"));
  // Others may pass through, not list: a Postgres started by root runs as the user `postgres`,
  // its data in a directory made (and opened to it) inside.
  chmodSync(tmp, 0o711);
  const reports = mkdtempSync(join(tmp, "reports-"));
  const started = performance.now();
  try {
    for (const tier of tiers) {
      if (interrupted) break;
      console.log(`\n=== tier ${tier} ===`);
      const tierStarted = performance.now();
      const reportFile = join(reports, `${tier}.json`);
      const result = await runTier(tier, reportFile, tmp);
      interrupted ||= result.interrupted;
      const seconds = (performance.now() - tierStarted) / 1000;
      runs.push({ tier, seconds, code: result.code, failures: readFailures(reportFile) });
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const total = (performance.now() - started) / 1000;
  const failureLines = runs.flatMap((run) => formatTierFailures(run.tier, run.code, run.failures));
  if (failureLines.length > 0) {
    console.log("\n=== test tiers: what failed ===");
    for (const line of failureLines) console.log(line);
  }
  console.log("\n=== test tiers: wall time ===");
  for (const run of runs) {
    const outcome = run.code === 0 ? "passed" : `FAILED (exit ${run.code})`;
    console.log(`${run.tier.padEnd(12)} ${run.seconds.toFixed(0).padStart(6)} s  ${outcome}`);
  }
  console.log(`${"total".padEnd(12)} ${total.toFixed(0).padStart(6)} s`);
  if (interrupted) return 130;
  return runs.find((run) => run.code !== 0)?.code ?? 0;
}

process.exitCode = await main();
