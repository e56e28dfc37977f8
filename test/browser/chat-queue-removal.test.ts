/**
 * Removing a queued input before delivery, in a real Chromium against the real opencode, where
 * the backend allows it (serve-legacy: the runtime holds queued inputs; 1.18's /api cannot
 * take one back, and there the page offers no remove button).
 */
import { describe, expect, it } from "vitest";
import { useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import {
  assistantText,
  byTestId,
  eventually,
  openNewSession,
  send,
  textsOf,
  waitForOutcomes,
} from "../support/chat-page.js";

const chromium = useBrowser();
const harness = useChatHarness({ backend: "serve-legacy" });

describe("queued inputs on a backend that can take them back", () => {
  it("a queued input removed before delivery never reaches the model; the next one runs", async () => {
    const { page } = await chromium.open();
    await openNewSession(page, harness.current, "remove queued");
    // Long enough (10 s) that the two sends and the removal land while it runs: 3 s was not,
    // once, on a loaded machine (the removal came after delivery: a 409).
    await send(page, "[[slow 200 50]]");
    await eventually(async () => (await assistantText(page)).includes("tok2")).toBe(true);
    await send(page, "[[reply the removed one]]");
    await send(page, "[[reply the kept one]]");
    const queued = byTestId(page, "queued-input");
    await eventually(() => textsOf(queued)).toEqual([
      expect.stringContaining("the removed one"),
      expect.stringContaining("the kept one"),
    ]);
    await byTestId(queued.first(), "remove-queued").click();
    await eventually(() => textsOf(byTestId(page, "queued-input"))).toEqual([
      expect.stringContaining("the kept one"),
    ]);
    // The removed input's turn never ran: no outcome of its own is shown.
    expect(await waitForOutcomes(page, 2)).toEqual(["completed", "completed"]);
    expect(await assistantText(page)).toBe("the kept one");
    const users = await textsOf(byTestId(page, "message-user"));
    expect(users).toEqual([
      "[[slow 200 50]]",
      expect.stringMatching(/the removed one.*not delivered/i),
      "[[reply the kept one]]",
    ]);
    const asked = harness.current.model.requests.map((request) => request.lastUserText);
    expect(asked.some((text) => text.includes("the removed one"))).toBe(false);
  });
});
