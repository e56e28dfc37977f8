/**
 * The browser tests' Chromium (see chromium.ts): one per test file, a new context per page,
 * closed after the file and checked gone (no process of its group left).
 *
 * Every page opened here has its console errors and uncaught errors collected: a test fails at
 * its end when any came (a CSP violation, an exception in the UI), unless it said which to expect.
 */
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { groupMembers, launchBrowser, PAGE_TIMEOUT_MS, type TestBrowser } from "./chromium.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** Where the tests write their screenshots (git-ignored). */
export const SCREENSHOT_DIR = join(ROOT, "test-results", "screenshots");

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
      context.setDefaultTimeout(PAGE_TIMEOUT_MS);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("console", (message) => {
        if (message.type() !== "error") return;
        // "Failed to load resource" names no resource: where it came from is what tells.
        const { url } = message.location();
        errors.push(`console: ${message.text()}${url ? ` (${url})` : ""}`);
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

/**
 * Writes `NAME.png` of the page as it is (a desktop, light), then `NAME-phone-dark.png` at a
 * phone's width (390×844) in the dark theme; leaves the page as it found it.
 */
export async function screenshotsWideAndPhone(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  const wide = page.viewportSize();
  await page.emulateMedia({ colorScheme: "dark" });
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, `${name}-phone-dark`);
  await page.emulateMedia({ colorScheme: null });
  if (wide !== null) await page.setViewportSize(wide);
}
