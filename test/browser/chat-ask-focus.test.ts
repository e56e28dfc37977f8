/**
 * Where the eyes and the keyboard are, in a real Chromium against the real opencode (issue 29,
 * items 8 and 9): an ask takes the focus on its primary button (Enter allows once), its three
 * answers look different; a rejected ask says so with the reason typed and its diff is drawn as
 * not applied; a send scrolls to the end, and new content while scrolled up offers "Jump to
 * latest" instead of pulling the reader down.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { screenshot, useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import {
  byTestId,
  eventually,
  openNewSession,
  send,
  textsOf,
  waitForOutcomes,
  writeTurn,
} from "../support/chat-page.js";

const chromium = useBrowser();
const harness = useChatHarness();

const DESKTOP = { width: 1280, height: 800 };

const focusedTestId = (page: Page) =>
  page.evaluate<string | null>(`document.activeElement?.getAttribute("data-testid") ?? null`);

/** How a button looks: its fill, text colour and border. */
const looks = (button: Locator) =>
  button.evaluate((element) => {
    const style = element.ownerDocument.defaultView?.getComputedStyle(element);
    return `${style?.backgroundColor} ${style?.color} ${style?.borderColor}`;
  });

/** How far (px) the conversation is from its end. */
const fromEnd = (page: Page) =>
  byTestId(page, "conversation").evaluate(
    (element) => element.scrollHeight - element.scrollTop - element.clientHeight,
  );

const scrollToTop = (page: Page) =>
  byTestId(page, "conversation").evaluate((element) => {
    element.scrollTop = 0;
  });

/** A reply long enough to scroll: many short paragraphs. */
const longReply = (label: string) =>
  `[[reply ${Array.from({ length: 40 }, (_, index) => `${label} paragraph ${index + 1}.`).join("\n\n")}]]`;

describe("asks take the focus; scrolling follows the reader", () => {
  for (const colorScheme of ["light", "dark"] as const) {
    it(`an ask takes the focus on Allow once (Enter allows it); its answers look different (${colorScheme})`, async () => {
      const { page } = await chromium.open({ viewport: DESKTOP, colorScheme });
      await openNewSession(page, harness.current, `ask focus ${colorScheme}`);
      const file = join(harness.current.directory, `focused-${colorScheme}.txt`);
      await send(page, writeTurn(file, "allowed with Enter\n", "done"));
      const ask = byTestId(page, "ask-permission");
      await ask.waitFor();
      await eventually(() => focusedTestId(page), "the ask's primary button has the focus").toBe(
        "allow-once",
      );
      const [once, always, reject] = await Promise.all([
        looks(byTestId(ask, "allow-once")),
        looks(byTestId(ask, "allow-always")),
        looks(byTestId(ask, "reject")),
      ]);
      expect(new Set([once, always, reject]).size).toBe(3);
      expect(await byTestId(ask, "allow-once").getAttribute("class")).toContain("primary");
      expect(await byTestId(ask, "reject").getAttribute("class")).toContain("danger");
      await screenshot(page, `ask-focused-${colorScheme}`);
      await page.keyboard.press("Enter");
      await eventually(() => byTestId(page, "ask-permission").count()).toBe(0);
      expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
      expect(readFileSync(file, "utf8")).toBe("allowed with Enter\n");
    });
  }

  it("a rejected ask says Rejected with the reason typed; its diff is drawn as not applied", async () => {
    const { page } = await chromium.open({ viewport: DESKTOP });
    await openNewSession(page, harness.current, "rejected look");
    const file = join(harness.current.directory, "rejected-look.txt");
    await send(page, writeTurn(file, "never written\n", "told no"));
    const ask = byTestId(page, "ask-permission");
    await ask.waitFor();
    await byTestId(ask, "reject-message").fill("wrong file, use notes.md");
    await byTestId(ask, "reject").click();
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    expect(existsSync(file)).toBe(false);
    const record = byTestId(page, "permission-record");
    await record.waitFor();
    expect(await record.getAttribute("data-reply")).toBe("reject");
    const said = (await textsOf(record)).join(" ");
    expect(said).toContain("Rejected");
    expect(said).toContain("wrong file, use notes.md");
    const diff = byTestId(record, "part-diff");
    expect(await diff.getAttribute("data-applied")).toBe("false");
    const added = diff.locator(".diff-line.add").first();
    const look = await added.evaluate((element) => {
      const style = element.ownerDocument.defaultView?.getComputedStyle(element);
      return { background: style?.backgroundColor, decoration: style?.textDecorationLine };
    });
    // No green "applied" fill; struck through.
    expect(look.background).toBe("rgba(0, 0, 0, 0)");
    expect(look.decoration).toContain("line-through");
    await screenshot(page, "ask-rejected");
  });

  it("a send scrolls to the end; new content while scrolled up offers Jump to latest", async () => {
    const { page } = await chromium.open({ viewport: DESKTOP });
    const id = await openNewSession(page, harness.current, "scrolling");
    await send(page, longReply("first"));
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    await scrollToTop(page);
    await eventually(() => fromEnd(page)).toBeGreaterThan(200);

    await send(page, "[[reply sent while scrolled up]]");
    expect(await waitForOutcomes(page, 2)).toEqual(["completed", "completed"]);
    await eventually(() => fromEnd(page), "the send scrolled to the end").toBeLessThan(80);
    expect(await byTestId(page, "jump-to-latest").count()).toBe(0);

    await scrollToTop(page);
    await eventually(() => fromEnd(page)).toBeGreaterThan(200);
    // New content from elsewhere (another tab, say) while the reader is up: they stay there.
    await harness.current.client.send(id, { text: longReply("third"), delivery: "queue" });
    expect(await waitForOutcomes(page, 3)).toHaveLength(3);
    const jump = byTestId(page, "jump-to-latest");
    await jump.waitFor();
    expect(await fromEnd(page)).toBeGreaterThan(200);
    await screenshot(page, "jump-to-latest");
    await jump.click();
    await eventually(() => fromEnd(page)).toBeLessThan(80);
    await eventually(() => jump.count()).toBe(0);
  });
});
