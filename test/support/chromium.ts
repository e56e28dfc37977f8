/**
 * The Chromium of the browser tests and the bench: `@sparticuz/chromium` ships one compressed
 * inside the npm package (no download at run time; `executablePath()` unpacks it into the temp
 * dir once and finds it there afterwards), driven by `playwright-core`. The browser's process
 * group is recorded with the process tracker, killed on exit or a signal, and waited gone on
 * close.
 */
import { readdirSync } from "node:fs";
import chromium from "@sparticuz/chromium";
import { type Browser, type BrowserServer, chromium as playwright } from "playwright-core";
import { readProcStat } from "../../src/util/process-liveness.js";
import { killOnExit } from "./kill-on-exit.js";
import { isRunning, trackProcess } from "./process-tracker.js";

/**
 * Flags of @sparticuz/chromium that are made for AWS Lambda and would make the tests less
 * honest or less stable: no same-origin policy, mixed content allowed, one process for all.
 */
const DROPPED_FLAGS = new Set([
  "--disable-web-security",
  "--allow-running-insecure-content",
  "--disable-site-isolation-trials",
  "--single-process",
  "--no-zygote",
  "--headless='shell'",
]);

/** Unpacks the shipped Chromium (once; later calls find it in the temp dir). */
export function chromiumExecutable(): Promise<string> {
  return chromium.executablePath();
}

/** The command-line flags to launch it with (headless, no sandbox: no setuid helper here). */
export function chromiumFlags(): string[] {
  return chromium.args.filter((flag) => !DROPPED_FLAGS.has(flag));
}

/** Bound on the browser's exit after `close()`. */
const EXIT_WAIT_MS = 10_000;
/** Bound on one Playwright wait in a page (a turn on the real opencode included). */
export const PAGE_TIMEOUT_MS = 60_000;

export interface TestBrowser {
  browser: Browser;
  /** The browser's pid, which is also its process group (Playwright starts it detached). */
  pid: number;
  /** Closes it and waits until no process of its group is left (kills them if need be). */
  close(): Promise<void>;
}

/** Launches a headless Chromium; see `TestBrowser`. */
export async function launchBrowser(): Promise<TestBrowser> {
  const server: BrowserServer = await playwright.launchServer({
    executablePath: await chromiumExecutable(),
    args: chromiumFlags(),
    headless: true,
  });
  const pid = server.process().pid;
  if (pid === undefined) {
    await server.close();
    throw new Error("Chromium started without a pid");
  }
  trackProcess(pid, "chromium (browser tests)");
  const killGroup = (): void => killProcessGroup(pid);
  const exitHook = killOnExit(killGroup);
  let browser: Browser;
  try {
    browser = await playwright.connect(server.wsEndpoint());
  } catch (error) {
    killGroup();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    browser,
    pid,
    close() {
      closing ??= (async () => {
        try {
          await browser.close().catch(() => {});
          await server.close();
          await waitForGroupExit(pid);
        } catch (error) {
          killGroup();
          throw error;
        } finally {
          exitHook.dispose();
        }
      })();
      return closing;
    },
  };
}

function killProcessGroup(pid: number): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, "SIGKILL");
    } catch {
      // gone already
    }
  }
}

/** The running processes of group `pgid` (Linux: from /proc). */
export function groupMembers(pgid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
  } catch {
    return [];
  }
  return entries.map(Number).filter((pid) => readProcStat(pid)?.pgrp === pgid && isRunning(pid));
}

/**
 * Chromium's helpers outlive its main process by a moment: waits (bounded) until the group is
 * empty; what is still there then is killed and reported.
 */
async function waitForGroupExit(pgid: number): Promise<void> {
  const deadline = Date.now() + EXIT_WAIT_MS;
  while (Date.now() < deadline) {
    if (groupMembers(pgid).length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const left = groupMembers(pgid);
  killProcessGroup(pgid);
  throw new Error(`Chromium processes still alive after close: ${left.join(", ")}`);
}
