/**
 * The web chat for every user, in a real Chromium against the real opencode: on a phone
 * (390×844) nothing scrolls sideways and the session list folds behind a toggle; light and
 * dark themes (the system's by default, switched by the toggle); and the keyboard alone
 * creates a session, sends a message, answers a question and allows an edit.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { screenshot, useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import {
  assistantText,
  byTestId,
  eventually,
  openChat,
  openNewSession,
  QUESTION,
  send,
  sessionItem,
  tabTo,
  waitForOutcomes,
  writeTurn,
} from "../support/chat-page.js";

const chromium = useBrowser();
const harness = useChatHarness();

const PHONE = { width: 390, height: 844 };

/** A reply with what tends to push a page wider than a phone: long code lines, long words. */
const WIDE_REPLY = [
  `A long word: ${"x".repeat(150)}`,
  "",
  "```js",
  `const line = "${"a very long line of code ".repeat(12)}";`,
  "```",
  "",
  "| a | table | with | several | columns | that | is | wide |",
  "|---|---|---|---|---|---|---|---|",
  "| 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 |",
].join("\n");

const scrollWidth = (page: Page) => page.evaluate<number>("document.documentElement.scrollWidth");
const theme = (page: Page) =>
  page.evaluate<string | null>("document.documentElement.getAttribute('data-theme')");
const background = (page: Page) =>
  page.evaluate<string>("getComputedStyle(document.body).backgroundColor");

describe("the web chat on a phone, in both themes, with the keyboard alone", () => {
  it("at 390×844 nothing scrolls sideways; the session list folds behind a toggle", async () => {
    const { page } = await chromium.open({ viewport: PHONE, isMobile: true, hasTouch: true });
    const { id } = await harness.current.client.createSession({ title: "phone" });
    await openChat(page, harness.current.chatUrl);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
    const toggle = byTestId(page, "sidebar-toggle");
    await toggle.waitFor();
    // Folded away at first; the toggle shows it.
    expect(await sessionItem(page, id).isVisible()).toBe(false);
    await toggle.click();
    await eventually(() => sessionItem(page, id).isVisible()).toBe(true);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await sessionItem(page, id).click();
    await byTestId(page, "composer-input").waitFor();
    await send(page, `[[tool bash {"command":"echo on a phone"}]] [[then ${WIDE_REPLY}]]`);
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
    // Nor does the conversation inside it (wide code and tables scroll in their own boxes).
    const conversation = byTestId(page, "conversation");
    const [inner, shown] = await Promise.all([
      conversation.evaluate((element) => element.scrollWidth),
      conversation.evaluate((element) => element.clientWidth),
    ]);
    expect(inner).toBeLessThanOrEqual(shown);
    await screenshot(page, "phone");
    // Opening a session folded the list again.
    expect(await sessionItem(page, id).isVisible()).toBe(false);
  });

  it("the theme follows the system's, the toggle switches it, and the colours change", async () => {
    const dark = (
      await chromium.open({ colorScheme: "dark", viewport: { width: 1100, height: 720 } })
    ).page;
    await openNewSession(dark, harness.current, "dark");
    expect(await theme(dark)).toBe("dark");
    const light = (await chromium.open({ colorScheme: "light" })).page;
    await openChat(light, harness.current.chatUrl);
    expect(await theme(light)).toBe("light");
    const lightBackground = await background(light);
    await send(
      dark,
      '[[tool bash {"command":"echo in the dark"}]] [[then Some **bold** and code:\n\n```ts\nconst dark = (on: boolean): string => (on ? "dark" : "light");\n```]]',
    );
    await waitForOutcomes(dark, 1);
    expect(await background(dark)).not.toBe(lightBackground);
    await screenshot(dark, "dark-mode");
    await byTestId(light, "theme-toggle").click();
    expect(await theme(light)).toBe("dark");
    expect(await background(light)).toBe(await background(dark));
    await byTestId(light, "theme-toggle").click();
    expect(await theme(light)).toBe("light");
    expect(await background(light)).toBe(lightBackground);
  });

  it("the keyboard alone: a new session, a message sent, a question answered, an edit allowed", async () => {
    const { page } = await chromium.open();
    await openChat(page, harness.current.chatUrl);
    // The list as the sidecar has it, drawn: counted before it loaded, it read 0 (seen once).
    const before = (await harness.current.client.listSessions()).length;
    await eventually(() => byTestId(page, "session-item").count()).toBe(before);
    await tabTo(page, "new-session");
    // Focus is visible: an outline or a ring on the focused control.
    const ring = await page.evaluate<string>(
      "(() => { const s = getComputedStyle(document.activeElement); return s.outlineStyle + ' ' + s.boxShadow; })()",
    );
    expect(ring).not.toBe("none none");
    await page.keyboard.press("Enter");
    await eventually(() => byTestId(page, "session-item").count()).toBe(before + 1);
    await byTestId(page, "composer-input").waitFor();
    await tabTo(page, "composer-input");
    await page.keyboard.type(`${QUESTION} [[then chosen by keyboard]]`);
    await page.keyboard.press("Enter");
    await byTestId(page, "ask-question").waitFor();
    await tabTo(page, "question-option", (focused) => focused.text.includes("beta"));
    await page.keyboard.press("Space");
    // A single-choice button may send at once; else the submit button sends the choice.
    if ((await byTestId(page, "question-submit").count()) > 0) {
      await tabTo(page, "question-submit");
      await page.keyboard.press("Enter");
    }
    await eventually(() => byTestId(page, "ask-question").count()).toBe(0);
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    expect(await assistantText(page)).toContain("chosen by keyboard");
    const told = harness.current.model.requests.some(
      (request) =>
        request.lastUserText.includes("chosen by keyboard") &&
        JSON.stringify(request.messages).includes("beta"),
    );
    expect(told).toBe(true);
    // A permission, allowed from the keyboard too.
    const file = join(harness.current.directory, "by-keyboard.txt");
    await tabTo(page, "composer-input");
    await page.keyboard.type(writeTurn(file, "typed\n", "allowed by keyboard"));
    await page.keyboard.press("Enter");
    await byTestId(page, "ask-permission").waitFor();
    await tabTo(page, "allow-once");
    await page.keyboard.press("Enter");
    expect(await waitForOutcomes(page, 2)).toEqual(["completed", "completed"]);
    expect(readFileSync(file, "utf8")).toBe("typed\n");
  });
});
