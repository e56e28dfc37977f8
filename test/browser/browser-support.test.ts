/**
 * The browser tests' own support (test/support/browser.ts): a page's console errors, uncaught
 * errors and CSP violations are collected (each browser test fails on them), screenshots are
 * written, a closed browser leaves no process behind, and a chat that is not built fails the
 * tests (never skips them) saying how to build it.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { screenshot, useBrowser } from "../support/browser.js";
import { groupMembers, launchBrowser } from "../support/chromium.js";
import { isRunning } from "../support/process-tracker.js";
import { assertWebBuilt } from "../support/web-build.js";

const chromium = useBrowser();

describe("the browser tests' support", () => {
  it("collects uncaught errors and console errors of the page", async () => {
    const { page, errors, expectErrors } = await chromium.open();
    await page.setContent(
      "<script>console.error('said in red'); setTimeout(() => { throw new Error('boom') })</script>",
    );
    await expect.poll(() => errors.length).toBe(2);
    expect(errors).toEqual(["console: said in red", expect.stringContaining("uncaught: boom")]);
    expectErrors(/said in red/, /boom/);
  });

  it("a CSP violation shows as a console error", async () => {
    const { page, errors, expectErrors } = await chromium.open();
    await page.setContent(
      `<meta http-equiv="Content-Security-Policy" content="script-src 'none'">` +
        "<script>window.__ran = true</script>",
    );
    await expect.poll(() => errors.join("\n")).toMatch(/Content Security Policy/);
    expect(await page.evaluate("window.__ran")).toBeUndefined();
    expectErrors(/Content Security Policy/);
  });

  it("writes a screenshot under test-results/screenshots", async () => {
    const { page } = await chromium.open({ viewport: { width: 200, height: 100 } });
    await page.setContent("<p>hello</p>");
    const path = await screenshot(page, "browser-support");
    expect(path).toMatch(/test-results\/screenshots\/browser-support\.png$/);
    expect(existsSync(path)).toBe(true);
  });

  it("a closed browser leaves no process of its group", async () => {
    const other = await launchBrowser();
    const context = await other.browser.newContext();
    await (await context.newPage()).setContent("<p>one</p>");
    expect(groupMembers(other.pid).length).toBeGreaterThan(1);
    await other.close();
    expect(groupMembers(other.pid)).toEqual([]);
    expect(isRunning(other.pid)).toBe(false);
  });

  it("a chat that is not built fails the browser tests, saying how to build it", () => {
    expect(() => assertWebBuilt("/nonexistent/dist/web/index.html")).toThrow(
      /not built .*run npm run build:web/,
    );
    expect(() => assertWebBuilt()).not.toThrow();
  });
});
