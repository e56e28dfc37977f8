/**
 * Driving the web chat in a page, by the `data-testid`s of the DOM contract only
 * (/work/briefs/web-spec.md, "DOM contract"). Waits are bounded: a safety net naming what was
 * awaited, never a speed check.
 */
import type { Locator, Page } from "playwright-core";
import { expect } from "vitest";
import type { ChatHarness } from "./chat-harness.js";
import { PAGE_TIMEOUT_MS } from "./chromium.js";

/**
 * Polls `read` until the assertion on its value holds (vitest's `expect.poll`, bounded).
 * Reads must not wait themselves: use `count()`, `allTextContents()`, `getAttribute` of a
 * locator known to exist.
 */
export function eventually<T>(
  read: () => Promise<T> | T,
  message?: string,
): ReturnType<typeof expect.poll<T>> {
  const options = { timeout: PAGE_TIMEOUT_MS, interval: 50 };
  return expect.poll(read, message === undefined ? options : { ...options, message });
}

/** The element(s) of a `data-testid`, optionally inside `within`. */
export function byTestId(page: Page | Locator, testId: string): Locator {
  return page.getByTestId(testId);
}

/** The text of each element of `locator`, whitespace collapsed and trimmed. */
export async function textsOf(locator: Locator): Promise<string[]> {
  return (await locator.allTextContents()).map((text) => text.replace(/\s+/g, " ").trim());
}

/** Opens the chat at `url` (the token in the fragment) and waits for the session list. */
export async function openChat(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await byTestId(page, "session-list").waitFor({ state: "attached" });
}

/** The session list's entry of `sessionId`. */
export function sessionItem(page: Page, sessionId: string): Locator {
  return page.locator(`[data-testid="session-item"][data-session-id="${sessionId}"]`);
}

/** Opens session `sessionId` from the session list and waits for its conversation. */
export async function openSession(page: Page, sessionId: string): Promise<void> {
  await sessionItem(page, sessionId).click();
  await byTestId(page, "conversation").waitFor();
  await byTestId(page, "composer-input").waitFor();
}

/**
 * Types `text` into the composer (newlines kept) and sends it with Enter, or with the button
 * `button` (`send`, `send-now`, `send-queue`); waits until the composer is empty again (the
 * input has left), as a user would before typing the next.
 */
export async function send(page: Page, text: string, button?: string): Promise<void> {
  const input = byTestId(page, "composer-input");
  await input.fill(text);
  if (button === undefined) await input.press("Enter");
  else await byTestId(page, button).click();
  await eventually(() => input.inputValue(), "the composer emptied after a send").toBe("");
}

/** The assistant messages, oldest first. */
export function assistantMessages(page: Page): Locator {
  return byTestId(page, "message-assistant");
}

/** The text parts of the `index`th assistant message (negative: from the end). */
export async function assistantText(page: Page, index = -1): Promise<string> {
  const messages = assistantMessages(page);
  const count = await messages.count();
  const at = index < 0 ? count + index : index;
  if (at < 0 || at >= count) return "";
  return (await textsOf(byTestId(messages.nth(at), "part-text"))).join(" ");
}

/** The outcomes shown so far (`completed`, `interrupted`, `failed`), oldest first. */
export async function outcomes(page: Page): Promise<(string | null)[]> {
  const shown = byTestId(page, "turn-outcome");
  const count = await shown.count();
  const values: (string | null)[] = [];
  for (let index = 0; index < count; index++) {
    values.push(await shown.nth(index).getAttribute("data-outcome"));
  }
  return values;
}

/** Waits until `count` turns have ended in the page; returns their outcomes. */
export async function waitForOutcomes(page: Page, count: number): Promise<(string | null)[]> {
  await eventually(async () => (await outcomes(page)).length, `${count} turn outcomes`).toBe(count);
  return outcomes(page);
}

/** `[[slow N …]]`'s reply: "tok1 tok2 … tokN". */
export function slowText(count: number): string {
  return Array.from({ length: count }, (_, index) => `tok${index + 1}`).join(" ");
}

/** A scripted turn that writes `content` to `file` (an edit: it asks), then replies `then`. */
export function writeTurn(file: string, content: string, then: string): string {
  return `[[tool write ${JSON.stringify({ path: file, content })}]] [[then ${then}]]`;
}

/** A scripted question with two options, `alpha` and `beta`. */
export const QUESTION =
  '[[tool question {"questions":[{"question":"Pick one","header":"Pick","options":[{"label":"alpha","description":"the first"},{"label":"beta","description":"the second"}]}]}]]';

/**
 * Chooses the option `label` of the question shown in `ask` with the mouse, and submits it
 * (when the options are checkboxes or toggles, a submit button sends them; a single-choice
 * button may send at once).
 */
export async function answerQuestion(ask: Locator, label: string): Promise<void> {
  await byTestId(ask, "question-option").filter({ hasText: label }).click();
  const submit = byTestId(ask, "question-submit");
  if ((await submit.count()) > 0) await submit.click();
}

/**
 * Presses Tab (no mouse) until the focused element has `data-testid` `testId` (and matches
 * `accept` when given); fails after a bounded number of presses.
 */
export async function tabTo(
  page: Page,
  testId: string,
  accept: (focused: { text: string }) => boolean = () => true,
): Promise<void> {
  for (let presses = 0; presses < 80; presses++) {
    const focused = await page.evaluate<{ testId: string | null; text: string }>(
      `(() => { const el = document.activeElement; return { testId: el && el.getAttribute("data-testid"), text: (el && (el.getAttribute("aria-label") || (el.closest("label") && el.closest("label").textContent) || el.textContent || el.value)) || "" }; })()`,
    );
    if (focused.testId === testId && accept(focused)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached a control with data-testid "${testId}"`);
}

/** A new session (made through the typed client), opened in `page`; returns its id. */
export async function openNewSession(
  page: Page,
  harness: ChatHarness,
  title: string,
  url = harness.chatUrl,
): Promise<string> {
  const { id } = await harness.client.createSession({ title });
  await openChat(page, url);
  await openSession(page, id);
  return id;
}
