/**
 * The model picker and a switch, in a real Chromium against the real opencode (issue 29, item
 * 11): the picker's label is never cut off mid-word (whole, or cut with an ellipsis and the
 * full name in its tooltip) on a desktop and a phone; a switch leaves a mark between the turns,
 * drawn from the session's durable `model.switched`, so a reload keeps it in its place.
 */
import type { BrowserContextOptions, Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { screenshot, screenshotsWideAndPhone, useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import {
  assistantText,
  byTestId,
  eventually,
  openChat,
  openNewSession,
  send,
  textsOf,
  waitForOutcomes,
} from "../support/chat-page.js";

const chromium = useBrowser();
const harness = useChatHarness();

const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };
const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  isMobile: true,
  hasTouch: true,
};

/** The `data-testid`s of the conversation's messages and marks, in the order drawn. */
const drawnOrder = (page: Page) =>
  byTestId(page, "conversation").evaluate((element) =>
    [...element.querySelectorAll('[data-testid^="message-"], [data-testid="model-switch"]')].map(
      (shown) => shown.getAttribute("data-testid"),
    ),
  );

/** Whether the element's text is drawn whole, or cut with an ellipsis. */
const drawing = (locator: Locator) =>
  locator.evaluate((element) => {
    const style = element.ownerDocument.defaultView?.getComputedStyle(element);
    return {
      fits: element.scrollWidth <= element.clientWidth,
      ellipsis: style?.textOverflow === "ellipsis",
    };
  });

describe("the model picker and a switch", () => {
  it("a model switch leaves a mark between the turns, there after a reload too", async () => {
    const { page } = await chromium.open(DESKTOP);
    await openNewSession(page, harness.current, "switch mark");
    await send(page, "[[reply on the first model]]");
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    const picker = byTestId(page, "model-picker");
    await eventually(() => picker.inputValue()).toBe("demo/demo-1");
    await picker.selectOption("demo/demo-2");
    const mark = byTestId(page, "model-switch");
    await eventually(() => textsOf(mark)).toEqual(["Model: demo/demo-1 → demo/demo-2"]);

    await send(page, "[[reply on the second model]]");
    expect(await waitForOutcomes(page, 2)).toEqual(["completed", "completed"]);
    expect(await assistantText(page)).toBe("on the second model");
    const order = ["message-user", "message-assistant", "model-switch", "message-user"];
    expect(await drawnOrder(page)).toEqual([...order, "message-assistant"]);
    await screenshotsWideAndPhone(page, "model-switch-mark");

    await page.reload();
    await waitForOutcomes(page, 2);
    expect(await textsOf(byTestId(page, "model-switch"))).toEqual([
      "Model: demo/demo-1 → demo/demo-2",
    ]);
    expect(await drawnOrder(page)).toEqual([...order, "message-assistant"]);
  });

  for (const [name, options] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ] as const) {
    it(`the model picker's label is whole or cut with an ellipsis, its full name in a tooltip (${name})`, async () => {
      const { page } = await chromium.open(options);
      // Opened by its address: on a phone the session list is folded away.
      const { id } = await harness.current.client.createSession({ title: `picker ${name}` });
      await openChat(page, `${harness.current.chatUrl}&session=${id}`);
      const label = byTestId(page, "model-picker-label");
      await eventually(() => textsOf(label)).toEqual(["Scripted demo model (not an LLM)"]);
      const shown = await drawing(label);
      expect(shown.fits || shown.ellipsis, JSON.stringify(shown)).toBe(true);
      expect(await byTestId(page, "model-picker-box").getAttribute("title")).toBe(
        "Model: Scripted demo model (not an LLM) (demo/demo-1)",
      );
      // The select still answers for it: what the label says is what is picked.
      expect(await byTestId(page, "model-picker").inputValue()).toBe("demo/demo-1");
      await screenshot(page, `model-picker-${name}`);
    });
  }
});
