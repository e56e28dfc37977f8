/**
 * Soak: sessions running turns back to back for minutes on a real bridge (a managed
 * `opencode serve`, the scripted model), in a child process of its own so that the memory
 * measured is the bridge's. Must hold: the RSS and heap slopes after the warm-up flat (under
 * `SLOPE_LIMITS`), the fds and active handles after the close back to the start figure, every
 * turn ended exactly once, nothing lost or duplicated in the store, no process left running.
 *
 * It runs alongside the other scenarios (`schedule: "alongside"`, see run.ts): its own figures,
 * peak RSS included, are its child's, and the child's slopes are judged against thresholds
 * wide enough for the machine's other load. The full variant is 10 sessions for 13 minutes
 * (a 3-minute warm-up, then 10 measured); `--minutes N` measures N instead (a long soak, to see
 * whether a slope levels off: alone, `npm run reliability -- --only soak --minutes 30 --keep`,
 * whose samples.ndjson keeps the curve), and `--jit on|off` chooses the child's V8 tiers.
 */

import type { Scenario, ScenarioContext, ScenarioResult, SoakOptions } from "../scenario.js";
import { activeCount } from "../soak/resources.js";
import { runSoak, type SoakLoad, type SoakRun, soakChildNodeArgs } from "../soak/run-soak.js";
import { RESOURCE_TOLERANCE, SLOPE_LIMITS, slopeNote, soakFigures } from "../soak/verdict.js";

/**
 * Without `--jit`, interpreting only. Production runs with V8's optimising compilers, but what
 * they compile takes longer than the suite's 20-minute budget to level off: a 30-minute soak
 * with them (docs/reliability.md) grew its objects ~20 KiB/min and its RSS in steps for 20
 * minutes, flat in its last 10 only. So the suite's 13 minutes judge the bridge's objects with
 * the JIT off, and `--jit on --minutes 30` judges production's configuration by its end.
 */
export const DEFAULT_JIT = false;

export const SOAK_LOAD: Readonly<Record<"full" | "short", SoakLoad>> = {
  /** 3 minutes of warm-up (verdict.ts), then the 10 minutes measured. */
  full: { sessions: 10, durationMs: 13 * 60_000, sampleEveryMs: 5_000, jit: DEFAULT_JIT },
  short: { sessions: 2, durationMs: 20_000, sampleEveryMs: 1_000, jit: DEFAULT_JIT },
};

/** The variant's load, with the runner's `--minutes` (full variant only) and `--jit`. */
function soakLoad(short: boolean, options: SoakOptions = {}): SoakLoad {
  const load = { ...SOAK_LOAD[short ? "short" : "full"], jit: options.jit ?? DEFAULT_JIT };
  if (short || options.minutes === undefined) return load;
  return { ...load, durationMs: SLOPE_LIMITS.full.warmUpMs + options.minutes * 60_000 };
}

function minutes(ms: number): string {
  return ms >= 60_000 ? `${ms / 60_000} min` : `${ms / 1000} s`;
}

/** The soak's figures as a row of the suite's table. */
export function soakRow(run: SoakRun, load: SoakLoad, short: boolean): ScenarioResult {
  const limits = SLOPE_LIMITS[short ? "short" : "full"];
  const figures = soakFigures(run.samples, run.end, limits);
  const end = run.end;
  const turns = end?.turns;
  const crashes = run.exit === "0" && end !== undefined ? 0 : 1;
  const allOnce = turns !== undefined && turns.started > 0 && turns.endedOnce === turns.started;
  const passed =
    crashes === 0 &&
    allOnce &&
    figures.flat &&
    figures.fdsBack &&
    figures.handlesBack &&
    end?.durableLost === 0 &&
    end.duplicated === 0 &&
    run.leaked.length === 0;
  const perMinute =
    turns === undefined ? 0 : Math.round(turns.endedOnce / (load.durationMs / 60_000));
  const notes = [
    slopeNote(figures, limits),
    end === undefined
      ? `the child ended (${run.exit}) without its end report`
      : `fds ${end.before.fds} at the start, ${end.running.fds} running, ${end.afterClose.fds} after close; ` +
        `active handles ${activeCount(end.before)} → ${activeCount(end.running)} → ${activeCount(end.afterClose)} ` +
        `(tolerance ${RESOURCE_TOLERANCE}; after close: ${JSON.stringify(end.afterClose.active)})`,
    `${perMinute} turns/min (${JSON.stringify(turns?.outcomes ?? {})}), ${end?.durableEvents ?? 0} durable events checked in the store` +
      (perMinute > 0
        ? `; the heap slope is ${Math.round((figures.heapSlope * 1024) / perMinute)} bytes per turn`
        : ""),
    ...(end?.errors.length ? [`first errors: ${end.errors.join(" | ").slice(0, 400)}`] : []),
    ...(run.leaked.length ? [`left running: ${run.leaked.join(", ")}`] : []),
    ...(run.strayLines.length ? [`stray child output: ${run.strayLines[0]}`] : []),
    "run alongside the other scenarios, the bridge in a child process (peak RSS is the child's), " +
      "on a store warmed first past SQLite's 32 MiB page cache (warm-store.ts), " +
      (load.jit
        ? "V8's optimising compilers on (--jit on, as in production)"
        : `V8 interpreting only (--jit off: ${soakChildNodeArgs(false).join(" ")}, see run-soak.ts)`),
  ];
  return {
    load: `${load.sessions} sessions × ${minutes(load.durationMs)}, turns back to back`,
    faultsInjected: 0,
    ...(turns === undefined
      ? {}
      : { turnsEndedOnce: { once: turns.endedOnce, started: turns.started } }),
    ...(end === undefined ? {} : { durableLost: end.durableLost, duplicated: end.duplicated }),
    crashes,
    leakedProcesses: run.leaked.length,
    ...(end === undefined ? {} : { peakRssBytes: end.peakRssBytes }),
    passed,
    notes,
  };
}

export const soakScenario: Scenario = {
  name: "soak",
  summary:
    "sessions running turns back to back on a real bridge in a child process: RSS and heap " +
    "slopes flat, fds and handles back after close",
  schedule: "alongside",
  async run(context: ScenarioContext) {
    const load = soakLoad(context.short, context.soak);
    context.note(`soak: ${load.sessions} sessions for ${minutes(load.durationMs)}`);
    const run = await runSoak(load, context);
    return soakRow(run, load, context.short);
  },
};
