/**
 * A real Chromium for the browser tests (see chromium.ts) driven by `playwright-core`. One
 * browser per test file, a new context per page; the browser's process group is recorded with
 * the process tracker, killed on exit or a signal, and checked gone after the file.
 *
 * Every page opened here has its console errors and uncaught errors collected: a test fails at
 * its end when any came (a CSP violation, an exception in the UI), unless it said which to expect.
 */
import { mkdirSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type BrowserServer,
  type Page,
  chromium as playwright,
} from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { readProcStat } from "../../src/util/process-liveness.js";
import { chromiumExecutable, chromiumFlags } from "./chromium.js";
import { isRunning, trackProcess } from "./process-tracker.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** Where the tests write their screenshots (git-ignored). */
export const SCREENSHOT_DIR = join(ROOT, "test-results", "screenshots");
/** Bound on the browser's exit after `close()`, and on one wait for the page. */
const EXIT_WAIT_MS = 10_000;

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
  const onSignal = (signal: NodeJS.Signals): void => {
    killGroup();
    process.off(signal, onSignal);
    process.kill(process.pid, signal);
  };
  process.on("exit", killGroup);
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
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
        } finally {
          process.off("exit", killGroup);
          process.off("SIGINT", onSignal);
          process.off("SIGTERM", onSignal);
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

/** A page with what went wrong in it: console errors and uncaught errors, as text. */
export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  errors: string[];
  /** Console errors matching one of these are expected (a refused connection in an outage test). */
  expectErrors(...patterns: RegExp[]): void;
}

/**
 * For the test file that calls it (at its top level): one Chromium for the file, closed (and
 * checked gone) after it; `open(options)` makes a page in a new context, closed after the test,
 * whose console and uncaught errors must be none (or expected) when the test ends.
 */
export function useBrowser(): {
  /** A new page in a new context. */
  open(options?: BrowserContextOptions): Promise<WatchedPage>;
  /** The browser of the file (after its `beforeAll`). */
  readonly browser: TestBrowser;
} {
  let launched: TestBrowser | undefined;
  const pages: WatchedPage[] = [];
  const allowed: RegExp[] = [];
  beforeAll(async () => {
    launched = await launchBrowser();
  });
  afterAll(async () => {
    await launched?.close();
    if (launched !== undefined) expect(groupMembers(launched.pid)).toEqual([]);
  });
  afterEach(async () => {
    const opened = pages.splice(0);
    const patterns = allowed.splice(0);
    for (const watched of opened) await watched.context.close().catch(() => {});
    const unexpected = opened
      .flatMap((watched) => watched.errors)
      .filter((error) => !patterns.some((pattern) => pattern.test(error)));
    expect(unexpected, "console errors or uncaught errors in the page").toEqual([]);
  });
  return {
    get browser(): TestBrowser {
      if (launched === undefined) throw new Error("the browser is started in beforeAll");
      return launched;
    },
    async open(options = {}) {
      if (launched === undefined) throw new Error("the browser is started in beforeAll");
      const context = await launched.browser.newContext(options);
      context.setDefaultTimeout(EXIT_WAIT_MS * 3);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(`console: ${message.text()}`);
      });
      page.on("pageerror", (error) => errors.push(`uncaught: ${error.message}`));
      const watched: WatchedPage = {
        page,
        context,
        errors,
        expectErrors: (...patterns) => allowed.push(...patterns),
      };
      pages.push(watched);
      return watched;
    },
  };
}

/** Writes `test-results/screenshots/NAME.png` (the full page). */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
