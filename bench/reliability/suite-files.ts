/**
 * The files of one reliability run: a temp directory holding each scenario's `workDir`, and
 * the secrets the scenarios used. Kept until the run ends (the secrets scan reads them all),
 * then removed.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ScenarioContext, SoakOptions, SuiteFiles } from "./scenario.js";

export function createSuiteFiles(): SuiteFiles & { remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "ocb-reliability-"));
  return {
    dir,
    secrets: new Set(),
    secretSources: new Map(),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A scenario's context in `suite` (the runner's, and the short variants' in tests). */
export function scenarioContext(
  suite: SuiteFiles,
  name: string,
  options: {
    short: boolean;
    seed: number;
    note?: (line: string) => void;
    sampleRss?: () => void;
    soak?: SoakOptions;
  },
): ScenarioContext {
  const workDir = join(suite.dir, name);
  mkdirSync(workDir, { recursive: true });
  return {
    short: options.short,
    seed: options.seed,
    note: options.note ?? (() => {}),
    sampleRss: options.sampleRss ?? (() => {}),
    workDir,
    secret: (value, what) => {
      // A secret too short to be told apart from ordinary text would flag everything.
      if (value.length < 8) return;
      suite.secrets.add(value);
      if (!suite.secretSources.has(value)) {
        suite.secretSources.set(value, what === undefined ? name : `${name}: ${what}`);
      }
    },
    suite,
    ...(options.soak === undefined ? {} : { soak: options.soak }),
  };
}
