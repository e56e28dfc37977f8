/**
 * Small breakages of the web chat's drawing, in a real Chromium against the real opencode
 * (issue 29, item 12): an answered question's line (the record and the question tool's
 * output) wraps inside its card; a file chip beside an image preview keeps its pill shape;
 * the token page shows no Markdown backticks; and on a phone (390×844) Queue/Stop share a
 * row, Reject stays beside its reason, and the session drawer has a backdrop that closes it.
 */
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { screenshot, useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import {
  byTestId,
  eventually,
  openChat,
  openNewSession,
  send,
  textsOf,
  waitForOutcomes,
  writeTurn,
} from "../support/chat-page.js";

// A 1x1 PNG.
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const chromium = useBrowser();
const harness = useChatHarness();

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

const box = async (locator: Locator) => {
  const found = await locator.boundingBox();
  if (found === null) throw new Error("not drawn");
  return found;
};

/** Whether two controls sit on one row (their vertical middles within a few px). */
async function sameRow(one: Locator, two: Locator): Promise<boolean> {
  const [a, b] = [await box(one), await box(two)];
  return Math.abs(a.y + a.height / 2 - (b.y + b.height / 2)) < 6;
}

const isOpen = (page: Page) => byTestId(page, "sidebar-toggle").getAttribute("aria-expanded");

describe("small breakages", () => {
  it("an answered question's line wraps inside its card", async () => {
    const { page } = await chromium.open({ viewport: { width: 1280, height: 800 } });
    await openNewSession(page, harness.current, "long answer");
    const question = JSON.stringify({
      questions: [
        {
          question: "Which of these long-winded options describes the plan best, all things told?",
          header: "Plan",
          options: [
            { label: "the-first-option-with-a-rather-long-label", description: "one" },
            { label: "another", description: "two" },
          ],
        },
      ],
    });
    await send(page, `[[tool question ${question}]] [[then noted]]`);
    const ask = byTestId(page, "ask-question");
    await ask.waitFor();
    await ask
      .getByLabel("Your own answer (optional)")
      .fill(
        "my own answer, which is long enough to need more than one line of the card: " +
          "a_path/that/has/no/spaces/and/would/never/break/by/itself/".repeat(4),
      );
    await byTestId(ask, "question-submit").click();
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    const record = byTestId(page, "question-record");
    await record.waitFor();
    const fits = await record.evaluate((element) => {
      const card = element.closest("[data-testid=message-assistant]");
      const own = element.getBoundingClientRect();
      const edge = card?.getBoundingClientRect().right ?? Number.POSITIVE_INFINITY;
      return element.scrollWidth <= element.clientWidth && own.right <= edge + 1;
    });
    expect(fits).toBe(true);
    expect((await box(record)).height).toBeGreaterThan(40);
    // The question tool's own card says the answer too, in a line of prose that wraps likewise.
    const told = byTestId(
      page.locator('[data-testid="part-tool"][data-tool="question"]'),
      "tool-output",
    ).locator("pre");
    expect(await textsOf(told)).toEqual([expect.stringContaining("my own answer")]);
    const toldFits = await told.evaluate((element) => element.scrollWidth <= element.clientWidth);
    expect(toldFits).toBe(true);
    await screenshot(page, "question-record-wrapped");
  });

  it("a file chip beside an image preview keeps its pill shape", async () => {
    const { page } = await chromium.open({ viewport: { width: 1280, height: 800 } });
    await openNewSession(page, harness.current, "chips");
    await byTestId(page, "attach-image").setInputFiles({
      name: "thumb.png",
      mimeType: "image/png",
      buffer: Buffer.from(PNG, "base64"),
    });
    const path = byTestId(page, "attach-path");
    await path.fill("notes/some-file.txt");
    await path.press("Enter");
    const chip = byTestId(page, "attachment-chip");
    await chip.waitFor();
    const [chipBox, imageBox] = [await box(chip), await box(byTestId(page, "image-preview"))];
    expect(chipBox.height).toBeLessThan(imageBox.height / 1.5);
    expect(chipBox.width).toBeGreaterThan(chipBox.height);
    await screenshot(page, "chip-beside-image");
  });

  it("the token page shows no Markdown backticks", async () => {
    const { page, expectErrors } = await chromium.open({ viewport: { width: 1280, height: 800 } });
    expectErrors(/status of 401/);
    await page.goto(harness.current.chatUrl.replace(/#token=.*/, "#token=not-the-token"));
    const form = byTestId(page, "token-form");
    await form.waitFor();
    const problem = form.getByRole("alert");
    await problem.waitFor();
    const said = (await textsOf(problem)).join(" ");
    expect(said).toContain("refused");
    expect(said).not.toContain("`");
    expect(await textsOf(problem.locator("code"))).toEqual(["ocb serve"]);
    await screenshot(page, "token-refused");
  });

  it("on a phone: Send now, Queue and Stop share a row; Reject stays beside its reason", async () => {
    const { page } = await chromium.open(PHONE);
    // Opened by its address: on a phone the session list is folded away.
    const { id } = await harness.current.client.createSession({ title: "phone controls" });
    await openChat(page, `${harness.current.chatUrl}&session=${id}`);
    await byTestId(page, "composer-input").waitFor();
    const file = join(harness.current.directory, "phone-ask.txt");
    await send(page, writeTurn(file, "from the phone\n", "done"));
    const ask = byTestId(page, "ask-permission");
    await ask.waitFor();
    expect(await sameRow(byTestId(ask, "reject-message"), byTestId(ask, "reject"))).toBe(true);
    expect(await sameRow(byTestId(ask, "allow-once"), byTestId(ask, "allow-always"))).toBe(true);
    const stop = byTestId(page, "stop");
    await stop.waitFor();
    expect(await sameRow(byTestId(page, "send-now"), byTestId(page, "send-queue"))).toBe(true);
    expect(await sameRow(byTestId(page, "send-queue"), stop)).toBe(true);
    await screenshot(page, "phone-ask-controls");
    await byTestId(ask, "reject").click();
    expect(await waitForOutcomes(page, 1)).toHaveLength(1);
  });

  it("on a phone the session drawer has a backdrop; a tap outside closes it", async () => {
    const { page } = await chromium.open(PHONE);
    await openChat(page, harness.current.chatUrl);
    await byTestId(page, "sidebar-toggle").click();
    await eventually(() => isOpen(page)).toBe("true");
    const backdrop = byTestId(page, "sidebar-backdrop");
    await backdrop.waitFor();
    await screenshot(page, "phone-drawer-backdrop");
    await page.touchscreen.tap(370, 500);
    await eventually(() => isOpen(page)).toBe("false");
    expect(await backdrop.count()).toBe(0);
  });
});
