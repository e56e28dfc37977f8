/**
 * `scripts/start.ts` (what `npm start` runs) as tests start it: each start's processes
 * watched; after each test, a start still running (the test failed) is killed with its group,
 * whatever it left is killed too, and the temp dirs made for it are removed. Call
 * `useStartScript()` at the top level of a test file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, expect } from "vitest";
import { DescendantWatch } from "./descendants.js";
import { killLeftOcb, type RunningOcb, startOcb } from "./ocb-cli.js";

/** The line with the chat's link: its origin, then its token. */
export const CHAT_LINE = /^chat: (http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)$/m;
/** Safety net on a clean stop, not what is tested. */
export const EXIT_BOUND_MS = 15_000;

export interface StartedScript {
  cli: RunningOcb;
  watch: DescendantWatch;
}

export function useStartScript(): {
  /** Starts the script with `args` (a token of its own: `OCB_TOKEN` is cleared). */
  start(args: string[]): StartedScript;
  /** A temp dir removed after the test. */
  tempDir(prefix: string): string;
} {
  const dirs: string[] = [];
  const started: StartedScript[] = [];
  afterEach(() => {
    for (const { cli, watch } of started.splice(0)) {
      killLeftOcb(cli);
      watch.stop();
      watch.killLeft();
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    start(args) {
      const cli = startOcb(args, { entry: "scripts/start.ts", env: { OCB_TOKEN: "" } });
      const watch = new DescendantWatch(cli.pid);
      started.push({ cli, watch });
      return { cli, watch };
    },
    tempDir(prefix) {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
  };
}

/**
 * Ctrl-C as a terminal sends it (to the group) and npm forwards it (to the script); expects a
 * clean exit (0) and nothing the start made left running.
 */
export async function ctrlC({ cli, watch }: StartedScript): Promise<void> {
  process.kill(-cli.pid, "SIGINT");
  process.kill(cli.pid, "SIGINT");
  const code = await Promise.race([cli.exited, delay(EXIT_BOUND_MS, "still running" as const)]);
  expect(code, `${cli.stdout}\n${cli.stderr}`).toBe(0);
  await untilNothingLeft(watch);
}

/** Waits (bounded) until none of the start's processes runs, then expects that. */
export async function untilNothingLeft(watch: DescendantWatch): Promise<void> {
  const deadline = Date.now() + EXIT_BOUND_MS;
  while (watch.running().length > 0 && Date.now() < deadline) await delay(100);
  expect(watch.running()).toEqual([]);
}
