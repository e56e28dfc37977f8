/**
 * Reverting a poisoned session from the web chat, in a real Chromium against the real opencode
 * (issue 29, item 1): a session where every turn fails because an earlier message carried a
 * text file as media (sent straight to OpenCode, as an older bridge did) offers "Undo" ("Revert
 * to before this message") under each input but the first; confirmed, the poisoned input
 * and all after it are set aside under a "Redo" bar; Redo brings them back; undone again, the
 * next message gets an answer and makes the undo final (the bar goes).
 */
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
} from "../support/chat-page.js";
import { sendPoisonedPrompt } from "../support/poisoned-prompt.js";

const chromium = useBrowser();
const harness = useChatHarness();

describe("reverting a session from the chat", () => {
  it("offers a revert under failed inputs, and the session answers again after it", async () => {
    const { page } = await chromium.open({ viewport: { width: 1280, height: 800 } });
    const { bridge, directory } = harness.current;
    const sessionId = await openNewSession(page, harness.current, "poisoned");
    await send(page, "[[reply zero]]");
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    await sendPoisonedPrompt(bridge.server, directory, sessionId);
    expect(await waitForOutcomes(page, 2)).toEqual(["completed", "failed"]);
    await send(page, "[[reply still]]");
    expect(await waitForOutcomes(page, 3)).toEqual(["completed", "failed", "failed"]);

    // Each input with its turn's actions under it.
    const users = byTestId(page, "user-turn");
    // Under the two failed inputs, not under the first (nothing is before it to revert to).
    const offers = page.getByRole("button", { name: "Revert to before this message" });
    await eventually(() => offers.count()).toBe(2);
    expect(await users.nth(0).getByRole("button").count()).toBe(0);
    await users.nth(1).getByRole("button", { name: "Revert to before this message" }).click();
    const confirm = page.getByRole("group", { name: "Revert the session" });
    await confirm.waitFor();
    await screenshot(page, "chat-revert-confirm");
    await confirm.getByRole("button", { name: "Undo", exact: true }).click();

    await eventually(() => textsOf(users.locator(".user-text"))).toEqual(["[[reply zero]]"]);
    await eventually(() => offers.count()).toBe(0);
    const redoBar = byTestId(page, "redo-bar");
    await eventually(() => redoBar.textContent()).toMatch(/^2 messages undone\./);
    await screenshot(page, "chat-revert-redo-bar");

    await redoBar.getByRole("button", { name: "Redo" }).click();
    await eventually(() => users.count()).toBe(3);
    await eventually(() => redoBar.count()).toBe(0);
    expect(await waitForOutcomes(page, 3)).toEqual(["completed", "failed", "failed"]);

    await users.nth(1).getByRole("button", { name: "Revert to before this message" }).click();
    await confirm.getByRole("button", { name: "Undo", exact: true }).click();
    await eventually(() => textsOf(users.locator(".user-text"))).toEqual(["[[reply zero]]"]);
    await send(page, "[[reply recovered]]");
    expect(await waitForOutcomes(page, 2)).toEqual(["completed", "completed"]);
    await eventually(() => redoBar.count()).toBe(0);
    await screenshot(page, "chat-revert-after");
  });
});
