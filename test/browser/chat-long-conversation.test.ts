/**
 * A long conversation is drawn from its last turns (web/src/conversation/render-window.ts), in
 * a real Chromium against the real sidecar and OpenCode. The budget is lowered through the
 * debug knob `localStorage["ocb.renderBudget"]` so that five turns make a long conversation:
 * with a budget of 3, one turn (its user message, a tool card and a text) is a window, and
 * each growth draws one more turn.
 */
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { screenshot, useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import {
  byTestId,
  eventually,
  openNewSession,
  openSession,
  send,
  textsOf,
  waitForOutcomes,
} from "../support/chat-page.js";

const chromium = useBrowser();
const harness = useChatHarness();

const TURNS = 5;

/** Turn `n`'s prompt: a tool call, then an answer taller than the page. */
function prompt(n: number): string {
  const paragraphs = Array.from({ length: 30 }, (_, index) => `Turn ${n}, paragraph ${index + 1}.`);
  return `turn ${n} [[tool bash {"command":"echo ${n}"}]] [[then ${paragraphs.join("\n\n")}]]`;
}

async function userTexts(page: Page): Promise<string[]> {
  return promptsOf(byTestId(page, "message-user"));
}

/** The prompts of the user messages `messages` without their directives ("turn 3"). */
async function promptsOf(messages: Locator): Promise<string[]> {
  return (await textsOf(messages)).map((text) => text.split(" [[")[0] ?? "");
}

/** Where the first drawn user message is on screen (px from the viewport's top). */
async function firstUserTop(page: Page): Promise<number> {
  return byTestId(page, "message-user")
    .first()
    .evaluate((element) => element.getBoundingClientRect().top);
}

/** How far (px) the conversation is scrolled from its end. */
async function fromEnd(page: Page): Promise<number> {
  return byTestId(page, "conversation").evaluate(
    (element) => element.scrollHeight - element.scrollTop - element.clientHeight,
  );
}

describe("a long conversation", () => {
  it("is drawn from its last turns; earlier ones come on scrolling up or with the button", async () => {
    const { page } = await chromium.open({ viewport: { width: 1000, height: 600 } });
    const id = await openNewSession(page, harness.current, "long");
    for (let n = 1; n <= TURNS; n++) {
      await send(page, prompt(n));
      await waitForOutcomes(page, n);
    }
    const all = Array.from({ length: TURNS }, (_, index) => `turn ${index + 1}`);
    // Under the default budget five turns are all drawn, with no way to earlier ones.
    expect(await userTexts(page)).toEqual(all);
    expect(await byTestId(page, "show-earlier").count()).toBe(0);

    await page.evaluate('localStorage.setItem("ocb.renderBudget", "3")');
    await page.reload();
    await byTestId(page, "session-list").waitFor({ state: "attached" });
    await openSession(page, id);
    await waitForOutcomes(page, 1);
    expect(await userTexts(page)).toEqual(["turn 5"]);
    const button = page.getByRole("button", { name: "Show earlier messages (8)" });
    expect(await button.count()).toBe(1);
    await eventually(() => fromEnd(page), "the view at the end").toBeLessThan(2);
    await screenshot(page, "chat-long-conversation-earlier");

    // A mark on the drawn message, which a remount would lose.
    await byTestId(page, "message-user")
      .first()
      .evaluate((element) => element.setAttribute("data-was-drawn", ""));

    // Up to the top: one turn more is drawn above, and what was on screen stays where it was.
    const before = await byTestId(page, "conversation").evaluate((element) => {
      element.scrollTop = 0;
      const first = element.querySelector('[data-testid="message-user"]');
      return first === null ? Number.NaN : first.getBoundingClientRect().top;
    });
    await eventually(() => userTexts(page), "a turn drawn above").toEqual(["turn 4", "turn 5"]);
    const after = await byTestId(page, "message-user")
      .nth(1)
      .evaluate((element) => element.getBoundingClientRect().top);
    expect(Math.abs(after - before)).toBeLessThan(4);
    // Nothing more: the new turn is tall enough to take the top out of reach.
    expect(await userTexts(page)).toEqual(["turn 4", "turn 5"]);
    expect(await page.getByRole("button", { name: "Show earlier messages (6)" }).count()).toBe(1);

    // With the keyboard (no scrolling): each press draws a turn more, and says so.
    const more = byTestId(page, "show-earlier");
    await more.evaluate((element) =>
      (element as unknown as { focus(options: object): void }).focus({ preventScroll: true }),
    );
    const kept = await firstUserTop(page);
    await page.keyboard.press("Enter");
    await eventually(() => userTexts(page), "a turn drawn by the button").toEqual(all.slice(2));
    expect(await byTestId(page, "earlier-shown").textContent()).toBe(
      "2 earlier messages shown, 4 more before them",
    );
    expect(await more.textContent()).toBe("Show earlier messages (4)");
    expect(
      Math.abs(
        (await byTestId(page, "message-user")
          .nth(1)
          .evaluate((element) => element.getBoundingClientRect().top)) - kept,
      ),
    ).toBeLessThan(4);
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await eventually(() => userTexts(page), "every turn drawn").toEqual(all);
    expect(await more.count()).toBe(0);
    expect(await byTestId(page, "earlier-shown").textContent()).toBe(
      "2 earlier messages shown, from the start of the conversation",
    );
    // The messages drawn first were kept as they were, not made again.
    expect(await promptsOf(page.locator("[data-was-drawn]"))).toEqual(["turn 5"]);
    // The button went with the last of them: the keyboard is on the conversation, not lost.
    const focused = await page.evaluate<string | null>(
      'document.activeElement && document.activeElement.getAttribute("data-testid")',
    );
    expect(focused).toBe("conversation");

    // A new turn is drawn as it comes, and the view follows it to the end.
    await send(page, "turn 6 [[reply the latest]]");
    expect(await waitForOutcomes(page, TURNS + 1)).toHaveLength(TURNS + 1);
    expect(await userTexts(page)).toEqual([...all, "turn 6"]);
    await eventually(() => fromEnd(page), "the view at the end").toBeLessThan(2);
    expect(await byTestId(page, "jump-to-latest").count()).toBe(0);
  });
});
