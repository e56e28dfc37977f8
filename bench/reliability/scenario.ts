/**
 * A reliability scenario and the one row it reports. Every scenario fills the same columns, so
 * that the suite prints one table whose figures can be published and compared; a column that
 * does not apply to a scenario (no turns run in the fuzzer) is left undefined and shows as "—".
 */

/** What one scenario did to the bridge, and what it counted. */
export interface ScenarioRow {
  scenario: string;
  /** The load, in words: "1,000,000 mutated frames", "5 sessions × 5 min". */
  load: string;
  /** Faults or malformed inputs injected (cuts, kills, mutated frames, bad requests). */
  faultsInjected: number;
  /** Turns that ended exactly once, of the turns started. */
  turnsEndedOnce?: { once: number; started: number };
  /** Durable events (or input frames) lost. */
  durableLost?: number;
  /** Durable events (or frames) delivered more than once. */
  duplicated?: number;
  /** Uncaught exceptions, crashed processes. */
  crashes: number;
  /** Processes left running after the scenario closed. */
  leakedProcesses?: number;
  /** Peak resident set size of the suite's process while the scenario ran. */
  peakRssBytes: number;
  passed: boolean;
  /** What a reader needs to judge or reproduce the row: seeds, rates, the first finding. */
  notes: string[];
}

/** What the runner gives each scenario. */
export interface ScenarioContext {
  /** The short variant (as `npm test` runs it) instead of the full one. */
  short: boolean;
  /** The seed of anything random, printed so that a run can be repeated. */
  seed: number;
  /** Progress for the console (stderr), not part of the table. */
  note(line: string): void;
  /** Records the current RSS in the scenario's peak (the sampler also runs on a timer). */
  sampleRss(): void;
  /**
   * A directory of the scenario's own, inside the suite's: its stores, logs, transcripts and
   * exported files go there, kept until the suite ends so that the secrets scan reads them.
   */
  workDir: string;
  /**
   * Tells the suite a secret the scenario used (a token, a server password, a provider API
   * key): the secrets scan looks for each in every file the suite wrote. `what` names it in a
   * finding ("the managed server's password"), which never shows the secret itself.
   */
  secret(value: string, what?: string): void;
  /** The suite's directory (every scenario's `workDir` is in it) and the secrets told so far. */
  suite: SuiteFiles;
  /** The soak's `--minutes` and `--jit` (run.ts); the full variant's defaults when not given. */
  soak?: SoakOptions;
}

/** How long the full soak measures, and whether its child's V8 runs its optimising compilers. */
export interface SoakOptions {
  /** Minutes measured after the warm-up. */
  minutes?: number;
  jit?: boolean;
}

/** What the scenarios of one run share: where they write, and the secrets they used. */
export interface SuiteFiles {
  dir: string;
  secrets: Set<string>;
  /** Which scenario told each secret, and what it is (a finding names it, never the secret). */
  secretSources: Map<string, string>;
}

/**
 * What a scenario's run returns: its row, less the name and, unless the scenario measured it
 * itself (in a process of its own), the peak RSS, which the runner then samples.
 */
export type ScenarioResult = Omit<ScenarioRow, "scenario" | "peakRssBytes"> & {
  peakRssBytes?: number;
};

/**
 * When the runner runs a scenario. `in-turn` (the default): one after the other, in the
 * suite's order, the peak RSS sampled from the suite's process. `alongside`: started before
 * the others and run while they run; it must do its work in a process of its own and report
 * that process's peak RSS, so that neither its memory nor its figures mix with theirs.
 * `last`: after every other scenario has ended (the secrets scan reads what they all wrote).
 */
export type Schedule = "in-turn" | "alongside" | "last";

/** A scenario that is built: a name for `--only`, and its run. */
export interface Scenario {
  name: string;
  /** What it does and what must hold, in one line. */
  summary: string;
  schedule?: Schedule;
  run(context: ScenarioContext): Promise<ScenarioResult>;
}

/** A scenario of the issue not built yet: listed in the table, never hidden. */
export interface PlannedScenario {
  name: string;
  summary: string;
  planned: true;
}

export type SuiteEntry = Scenario | PlannedScenario;

export function planned(name: string, summary: string): PlannedScenario {
  return { name, summary, planned: true };
}

export function isPlanned(entry: SuiteEntry): entry is PlannedScenario {
  return "planned" in entry;
}
