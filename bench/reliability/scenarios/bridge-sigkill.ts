/**
 * The bridge SIGKILLed mid-turn, again and again: each time a new bridge on the same store
 * takes up the managed server its keeper kept, adopts the running turn, and the turn ends
 * exactly once; the stored transcript has no gap (seqs dense from 1, no event id twice, one
 * `turn.ended` per turn, each turn's events those of a turn nobody interrupted). The bridges
 * run as child processes (`bridge-sigkill/child.ts`); the scripted model runs here, so that it
 * outlives them. At the end nothing runs: the last bridge stopped the server.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { SqliteStore } from "../../../src/store/sqlite-store.js";
import { demoProviderConfig } from "../../../src/testing/demo-provider.js";
import { startScriptedModel } from "../../../src/testing/scripted-model/index.js";
import { Leftovers } from "../bridge-sigkill/leftovers.js";
import { MID_TURN_WINDOW_MS, REPLY } from "../bridge-sigkill/messages.js";
import {
  type KillPhase,
  type RoundPlan,
  type RoundsResult,
  runRounds,
} from "../bridge-sigkill/rounds.js";
import { checkTranscript, type TranscriptFigures } from "../bridge-sigkill/transcript-check.js";
import type { Scenario, ScenarioContext, ScenarioRow } from "../scenario.js";

/** Kills in a row: the issue's 20, and the short variant's. */
export const BRIDGE_KILLS = { full: 20, short: 3 } as const;
/** Kills land uniformly in this window after the turn's admission: every one before its end. */
export const KILL_WINDOW_MS = MID_TURN_WINDOW_MS;
/** How long the keeper keeps the server of a killed bridge (a successor comes in seconds). */
const ORPHAN_TIMEOUT_MS = 60_000;
/** Bound on the keeper and the server stopping after the last bridge closed. */
const SETTLE_MS = 10_000;

/** Every so many rounds, the successor is killed too, as it opens the session (the 2nd, 6th, …). */
export const RESTART_KILL_EVERY = 4;
/** Such a kill lands this soon after the successor's bridge is up: during `openSession`. */
export const RESTART_KILL_WINDOW_MS = 50;

/** The rounds of a run: when each kill lands, from its seed. */
export function roundPlan(seed: number, kills: number): RoundPlan[] {
  // Unbiased: fast-check's default leans to the bounds (most kills would land at 0-10 ms).
  const delays = fc.noBias(
    fc.tuple(
      fc.integer({ min: 0, max: KILL_WINDOW_MS - 1 }),
      fc.integer({ min: 0, max: RESTART_KILL_WINDOW_MS - 1 }),
    ),
  );
  return fc
    .sample(delays, { seed, numRuns: kills })
    .map(([killAfterMs, restartKillAfterMs], round) =>
      round % RESTART_KILL_EVERY === 1 ? { killAfterMs, restartKillAfterMs } : { killAfterMs },
    );
}

async function storedTranscript(storePath: string, sessionId: string | undefined) {
  if (sessionId === undefined) return [];
  const store = SqliteStore.open(storePath);
  try {
    return await store.read(sessionId);
  } finally {
    await store.close();
  }
}

function median(values: readonly number[]): number | undefined {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

function phaseNote(phases: readonly KillPhase[]): string {
  const counts = new Map<KillPhase, number>();
  for (const phase of phases) counts.set(phase, (counts.get(phase) ?? 0) + 1);
  return `kills landed: ${[...counts].map(([phase, count]) => `${count} ${phase}`).join(", ")}`;
}

/** The row: passed only when every kill was mid-turn, every turn adopted and ended once, nothing lost, duplicated or left running. */
export function bridgeSigkillRow(
  rounds: RoundsResult,
  transcript: TranscriptFigures,
  leaked: readonly string[],
  seed: number,
): Omit<ScenarioRow, "scenario" | "peakRssBytes"> {
  const kills = rounds.kills;
  const midTurn = rounds.phases.filter((phase) => phase !== "ended").length;
  const passed =
    rounds.failure === undefined &&
    rounds.findings.length === 0 &&
    midTurn === kills &&
    rounds.adopted === kills &&
    rounds.takenUp === kills &&
    transcript.turnsStarted === rounds.turnsSent &&
    transcript.endedOnce === transcript.turnsStarted &&
    transcript.lost === 0 &&
    transcript.duplicated === 0 &&
    transcript.problems.length === 0 &&
    leaked.length === 0;
  return {
    load: `1 session, ${transcript.turnsStarted} turns, ${kills} bridges killed mid-turn + ${rounds.restartKills} while adopting`,
    faultsInjected: kills + rounds.restartKills,
    turnsEndedOnce: { once: transcript.endedOnce, started: transcript.turnsStarted },
    durableLost: transcript.lost,
    duplicated: transcript.duplicated,
    crashes: rounds.crashes,
    leakedProcesses: leaked.length,
    passed,
    notes: [
      `seed ${seed}: SIGKILL 0-${KILL_WINDOW_MS} ms after the turn's admission, same session every round; ` +
        `the successor of every ${RESTART_KILL_EVERY}th round from the 2nd killed too, 0-${RESTART_KILL_WINDOW_MS} ms after its bridge was up`,
      `${midTurn} of ${kills} kills mid-turn (${phaseNote(rounds.phases)})`,
      `${rounds.adopted} of ${kills} running turns adopted, the server taken up ${rounds.takenUp} of ${kills} times`,
      ...(rounds.adoptionMs.length === 0
        ? []
        : [
            `restart (a new process) to the turn adopted: median ${median(rounds.adoptionMs)} ms; ` +
              `adopted turn's end after that: median ${median(rounds.endAfterOpenMs)} ms`,
          ]),
      `${transcript.events} durable events kept, ${transcript.problems.length} problems (gaps, repeats, turns unlike the reference)`,
      ...(rounds.failure === undefined ? [] : [`stopped early: ${rounds.failure}`]),
      ...rounds.findings.slice(0, 3),
      ...transcript.problems.slice(0, 3),
      ...(leaked.length === 0 ? [] : [`left running: ${leaked.join(", ")}`]),
    ],
  };
}

export const bridgeSigkillScenario: Scenario = {
  name: "bridge-sigkill",
  summary:
    "the bridge SIGKILLed mid-turn 20 times and restarted: each turn adopted, ends once, no gap",
  async run(context: ScenarioContext) {
    const kills = context.short ? BRIDGE_KILLS.short : BRIDGE_KILLS.full;
    const plan = roundPlan(context.seed, kills);
    context.note(`bridge-sigkill: ${kills} kills, seed ${context.seed}`);
    mkdirSync(join(context.workDir, "project"), { recursive: true });
    const apiKey = `ocb-bridge-sigkill-${randomBytes(12).toString("hex")}`;
    context.secret(apiKey);
    const leftovers = new Leftovers();
    const model = await startScriptedModel();
    let rounds: RoundsResult;
    let leaked: string[];
    try {
      const config = demoProviderConfig(model.url);
      config.provider.demo.options.apiKey = apiKey;
      rounds = await runRounds({
        workDir: context.workDir,
        config: { ...config },
        plan,
        orphanTimeoutMs: ORPHAN_TIMEOUT_MS,
        leftovers,
        secret: (value) => context.secret(value),
        note: (line) => {
          context.sampleRss();
          context.note(line);
        },
      });
      // The last bridge stopped the server: its keeper and it go within moments.
      leaked = await leftovers.settle(SETTLE_MS);
    } finally {
      await leftovers.stop();
      await model.close();
    }
    const events = await storedTranscript(join(context.workDir, "store.db"), rounds.sessionId);
    const transcript = checkTranscript(events, REPLY, rounds.referenceTurnId);
    return bridgeSigkillRow(rounds, transcript, leaked, context.seed);
  },
};
