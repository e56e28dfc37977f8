/**
 * What a page that joins a session later shows (a reload, a second tab), in a real Chromium
 * against the real opencode: the text a running part has already streamed is there at once,
 * then grows with the rest, with no gap and nothing doubled.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { screenshot, useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import {
  assistantText,
  byTestId,
  eventually,
  openNewSession,
  openSession,
  outcomes,
  send,
  slowText,
  waitForOutcomes,
} from "../support/chat-page.js";

const chromium = useBrowser();
const harness = useChatHarness();

/**
 * The running turn's text, read while the turn runs: `undefined` once it has ended (a
 * reading then says nothing of what streamed).
 */
async function streamingText(page: Page): Promise<string | undefined> {
  const text = await assistantText(page);
  return (await outcomes(page)).length === 0 ? text : undefined;
}

/**
 * Reads the page's running text until the turn ends: every reading must be the start of the
 * whole reply (no gap, nothing doubled), and the first one already begins at `tok1` (what
 * streamed before the page joined is shown). Returns the readings.
 */
async function followWhileRunning(page: Page, whole: string): Promise<string[]> {
  const readings: string[] = [];
  await eventually(async () => {
    const text = await streamingText(page);
    if (text !== undefined && text !== "") readings.push(text);
    return text === undefined;
  }, "the turn's end").toBe(true);
  for (const reading of readings) expect(whole.startsWith(reading), reading).toBe(true);
  return readings;
}

describe("a page that joins a session later", () => {
  it("shows a running part's text from its start in a second tab and after a reload", async () => {
    const count = 150;
    const whole = slowText(count);
    const { page } = await chromium.open();
    const id = await openNewSession(page, harness.current, "join mid-stream");
    await send(page, `[[slow ${count} 60]]`);
    await eventually(
      async () => (await streamingText(page))?.includes("tok12") ?? true,
      "the reply part-way",
    ).toBe(true);

    const second = await chromium.open({ viewport: { width: 1280, height: 800 } });
    await openNewSession(second.page, harness.current, "unused");
    await openSession(second.page, id);
    const inSecond = followWhileRunning(second.page, whole);

    await page.reload();
    await byTestId(page, "session-list").waitFor({ state: "attached" });
    await openSession(page, id);
    await screenshot(page, "join-stream-reloaded");
    const reloaded = await followWhileRunning(page, whole);
    const seconds = await inSecond;
    for (const readings of [reloaded, seconds]) {
      expect(readings.length, "readings while the turn ran").toBeGreaterThan(1);
      expect(readings[0]?.startsWith("tok1 tok2 tok3")).toBe(true);
      // It grew while read, from more than its start.
      expect(readings.at(-1)?.length ?? 0).toBeGreaterThan(readings[0]?.length ?? 0);
    }
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    expect(await assistantText(page)).toBe(whole);
    expect(await assistantText(second.page)).toBe(whole);
  });
});
