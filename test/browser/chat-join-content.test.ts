/**
 * What a page that joins a session later shows (a reload, a second tab), in a real Chromium
 * against the real opencode: a sent image is the same image as in the tab that sent it, not
 * a chip with its name; and the text a running part has already streamed is there at once,
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

// A 48x32 PNG (four coloured squares): its size tells it from any other image on the page.
const PNG_48X32 =
  "iVBORw0KGgoAAAANSUhEUgAAADAAAAAgCAIAAADbtmxLAAAAPklEQVR42u3PMQ0AMAwDwcAJpmIKxM7FURJWppN+ts7VcyO905EKCAgICAgICGgZlBpKHQMCAgICAgICWgZ9axXoeR6X2NIAAAAASUVORK5CYII=";

/** The images of the user messages' attachments, with their natural size once loaded. */
function sentImages(page: Page): Promise<{ alt: string; width: number; height: number }[]> {
  return byTestId(page, "user-attachment")
    .locator("img")
    .evaluateAll((images) =>
      images.map((element) => {
        const image = element as unknown as {
          alt: string;
          naturalWidth: number;
          naturalHeight: number;
        };
        return { alt: image.alt, width: image.naturalWidth, height: image.naturalHeight };
      }),
    );
}

const SHOWN = [{ alt: "squares.png", width: 48, height: 32 }];

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
  it("shows a sent image after a reload and in a second tab, as the sending tab does", async () => {
    const { page } = await chromium.open();
    const id = await openNewSession(page, harness.current, "image for later");
    await byTestId(page, "attach-image").setInputFiles({
      name: "squares.png",
      mimeType: "image/png",
      buffer: Buffer.from(PNG_48X32, "base64"),
    });
    await send(page, "[[reply seen it]]");
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    await eventually(() => sentImages(page)).toEqual(SHOWN);

    const second = await chromium.open({ viewport: { width: 1280, height: 800 } });
    await openNewSession(second.page, harness.current, "unused");
    await openSession(second.page, id);
    await eventually(() => sentImages(second.page), "the image in a second tab").toEqual(SHOWN);
    await second.page.setViewportSize({ width: 390, height: 844 });
    await screenshot(second.page, "join-image-second-tab-390");

    await page.reload();
    await byTestId(page, "session-list").waitFor({ state: "attached" });
    await openSession(page, id);
    await eventually(() => sentImages(page), "the image after a reload").toEqual(SHOWN);
    await page.setViewportSize({ width: 1280, height: 800 });
    await screenshot(page, "join-image-reloaded-1280");
  });

  it("shows a running part's text from its start in a second tab and after a reload", async () => {
    const count = 150;
    const whole = slowText(count);
    const { page } = await chromium.open({ viewport: { width: 1280, height: 800 } });
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
    await second.page.setViewportSize({ width: 390, height: 844 });
    await screenshot(second.page, "join-stream-second-tab-390");

    await page.reload();
    await byTestId(page, "session-list").waitFor({ state: "attached" });
    await openSession(page, id);
    await screenshot(page, "join-stream-reloaded-1280");
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
