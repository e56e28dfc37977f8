/**
 * The soak, from the suite's side: starts the scripted model's process and the bridge's child
 * (`soak-child.ts`), collects the child's samples and end report, and afterwards counts the
 * processes either started that are still running (and kills them, so that a failed soak
 * leaves nothing behind either).
 */
import { randomBytes } from "node:crypto";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { DescendantWatch } from "../../../test/support/descendants.js";
import { isRunning } from "../../../test/support/process-tracker.js";
import { within } from "../../../test/support/within.js";
import { markAlongside } from "../processes/alongside.js";
import { type ScriptProcess, startScript, stderrFile } from "../processes/script-process.js";
import {
  SOAK_SETTINGS_ENV,
  type SoakEnd,
  SoakReportSchema,
  type SoakSample,
  type SoakSettings,
} from "./reports.js";

export interface SoakLoad {
  sessions: number;
  durationMs: number;
  sampleEveryMs: number;
  /** The child's V8 with its optimising compilers (production's), or interpreting only. */
  jit: boolean;
}

export interface SoakRun {
  samples: SoakSample[];
  end?: SoakEnd;
  /** How the child exited: 0, another code, or a signal's name. */
  exit: string;
  /** Processes the child or the model process started (or they themselves) left running. */
  leaked: string[];
  /** Lines of the child's stdout that were not reports. */
  strayLines: string[];
}

/**
 * The child's V8 flags: none with the JIT on; without it, its interpreter only, its optimising
 * compilers off. What they compile grows long after the bridge's own warm-up, and is the
 * engine's, bounded by the program: measured with them on, 60 to 90 KiB/min of optimised code
 * and its metadata still at 5 to 10 minutes (heap snapshots: some 100 code objects more every
 * 3 minutes, each the live code of a function tiering up for the first time, `connect`,
 * `writeH1`, `listOnTimeout`…), and RSS after it (V8 growing its heap, and the compiler
 * threads' malloc arenas). With them off, a short soak's slopes are the bridge's own; the
 * objects a turn leaves behind are the same in every tier. With them on, it is what runs in
 * production, and a soak must run long enough for that growth to level off (verdict.ts).
 */
export function soakChildNodeArgs(jit: boolean): string[] {
  return jit ? [] : ["--no-opt", "--no-maglev", "--no-sparkplug"];
}

/** Bound on the child's start (a cold opencode start) and its close, beyond its duration. */
const SLACK_MS = 120_000;
/** Bound on the scripted model process's start (tsx compiling it on a busy machine). */
const START_BOUND_MS = 120_000;
/** How often /proc is read for their descendants: each lives seconds at least (a bash tool call). */
const WATCH_EVERY_MS = 250;

export async function runSoak(
  load: SoakLoad,
  context: {
    workDir: string;
    secret(value: string, what?: string): void;
    note(line: string): void;
  },
): Promise<SoakRun> {
  const apiKey = `sk-soak-${randomBytes(18).toString("hex")}`;
  const password = randomBytes(24).toString("base64url");
  context.secret(apiKey, "the provider API key");
  context.secret(password, "the managed server password");
  const run: SoakRun = { samples: [], exit: "not started", leaked: [], strayLines: [] };
  const started: ScriptProcess[] = [];
  const watches: DescendantWatch[] = [];
  try {
    const model = await startModel(context.workDir, started);
    watches.push(new DescendantWatch(model.process.pid, WATCH_EVERY_MS));
    const settings: SoakSettings = {
      sessions: load.sessions,
      durationMs: load.durationMs,
      sampleEveryMs: load.sampleEveryMs,
      modelUrl: model.url,
      workDir: context.workDir,
      apiKey,
      password,
    };
    const child = startScript("bench/reliability/soak/soak-child.ts", {
      env: { [SOAK_SETTINGS_ENV]: JSON.stringify(settings) },
      nodeArgs: soakChildNodeArgs(load.jit),
      stderrFile: stderrFile(context.workDir, "soak-child"),
      onLine: (line) => readReport(line, run, context.note, join(context.workDir, SAMPLES_FILE)),
    });
    started.push(child);
    markAlongside(child.pid);
    watches.push(new DescendantWatch(child.pid, WATCH_EVERY_MS));
    const bound = setTimeout(child.kill, load.durationMs + SLACK_MS);
    const exited = await child.exited.finally(() => clearTimeout(bound));
    run.exit = exited.signal ?? String(exited.code);
    model.process.child.stdin?.end();
    await within(model.process.exited, "the scripted model's exit", 5_000).catch(() => {});
  } finally {
    // What is still running a moment after both ended was left behind.
    await delay(500);
    for (const watch of watches) {
      watch.poll();
      watch.stop();
      run.leaked.push(...watch.running().map((seen) => `${seen.pid} ${seen.command.slice(0, 60)}`));
      watch.killLeft();
    }
    for (const process of started) if (isRunning(process.pid)) process.kill();
  }
  return run;
}

async function startModel(
  workDir: string,
  started: ScriptProcess[],
): Promise<{ url: string; process: ScriptProcess }> {
  let resolveUrl: (url: string) => void = () => {};
  const url = new Promise<string>((resolve) => {
    resolveUrl = resolve;
  });
  const model = startScript("bench/reliability/soak/model-process.ts", {
    stderrFile: stderrFile(workDir, "model"),
    onLine: (line) => resolveUrl(line.trim()),
  });
  started.push(model);
  markAlongside(model.pid);
  const exitedFirst = model.exited.then(() => {
    throw new Error("the scripted model's process exited at its start (see model.stderr.log)");
  });
  // A safety net only: the suite's process may be busy with a scenario running beside this one
  // (the fuzzer), and a timer that comes due first wins over a line read in the same turn.
  const first = await within(
    Promise.race([url, exitedFirst]),
    "the scripted model's start",
    START_BOUND_MS,
  );
  return { url: first, process: model };
}

/**
 * The child's samples, one JSON line each, kept in its work dir (`--keep` keeps it) for a look
 * at the curves behind the slopes.
 */
export const SAMPLES_FILE = "samples.ndjson";

function readReport(
  line: string,
  run: SoakRun,
  note: (line: string) => void,
  samplesFile: string,
): void {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    run.strayLines.push(line.slice(0, 200));
    return;
  }
  const parsed = SoakReportSchema.safeParse(json);
  if (!parsed.success) {
    run.strayLines.push(line.slice(0, 200));
    return;
  }
  const report = parsed.data;
  if (report.kind === "end") {
    run.end = report;
    return;
  }
  run.samples.push(report);
  appendFileSync(samplesFile, `${line}\n`);
  if (run.samples.length % 12 === 0) {
    const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
    note(
      `soak: ${Math.round(report.atMs / 1000)} s, ${report.turns} turns, RSS ${mib(report.rssBytes)} MiB, heap ${mib(report.heapBytes)} MiB`,
    );
  }
}
