/**
 * The web chat while a turn runs, in a real Chromium against the real opencode: "send now"
 * steers the running turn, "queue" (and Enter) queue inputs that are shown until they become
 * the next turns, and Stop interrupts; a failed turn says why and what to do.
 */
import { describe, expect, it } from "vitest";
import { useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import {
  assistantMessages,
  assistantText,
  byTestId,
  eventually,
  openNewSession,
  send,
  textsOf,
  waitForOutcomes,
} from "../support/chat-page.js";

const chromium = useBrowser();
const harness = useChatHarness();

describe("the composer while a turn runs", () => {
  it("send now steers the running turn; queue and Enter queue the next turns, shown until run", async () => {
    const { page } = await chromium.open();
    await openNewSession(page, harness.current, "steer and queue");
    // Long enough for the three sends below to land while it runs, even on a loaded machine.
    await send(page, "[[slow 60 80]]");
    await eventually(async () => (await assistantText(page)).includes("tok2")).toBe(true);
    // Running: the idle send button gives way to the two choices and Stop.
    expect(await byTestId(page, "send").count()).toBe(0);
    expect(await byTestId(page, "stop").count()).toBe(1);
    await send(page, "[[reply steered]]", "send-now");
    await send(page, "[[reply queued by button]]", "send-queue");
    await send(page, "[[reply queued by enter]]");
    await eventually(async () => textsOf(byTestId(page, "queued-input"))).toEqual([
      expect.stringContaining("queued by button"),
      expect.stringContaining("queued by enter"),
    ]);
    expect(await waitForOutcomes(page, 3)).toEqual(["completed", "completed", "completed"]);
    expect(await byTestId(page, "queued-input").count()).toBe(0);
    // The steer joined the first turn (its reply ends it); each queued input made a turn. The
    // steered message is drawn inside its turn: after what came before it, before its reply and
    // the turn's outcome (it was drawn after "Completed", like a message with no answer).
    const messages = assistantMessages(page);
    expect(await messages.count()).toBe(4);
    const turnIds = await Promise.all(
      [0, 1, 2, 3].map((index) => messages.nth(index).getAttribute("data-turn-id")),
    );
    expect(turnIds[0]).toBe(turnIds[1]);
    expect(new Set(turnIds).size).toBe(3);
    expect(await assistantText(page, 0)).toContain("tok60");
    expect(await assistantText(page, 1)).toContain("steered");
    expect(await assistantText(page, 2)).toBe("queued by button");
    expect(await assistantText(page, 3)).toBe("queued by enter");
    const drawn = await page
      .locator(
        '[data-testid="message-user"], [data-testid="message-assistant"], [data-testid="turn-outcome"]',
      )
      .evaluateAll((elements) =>
        elements.map((element) => {
          const id = element.getAttribute("data-testid");
          if (id !== "message-user") return id === "turn-outcome" ? "outcome" : "assistant";
          return (element.textContent ?? "").includes("steered") ? "steer" : "user";
        }),
      );
    expect(drawn.slice(0, 5)).toEqual(["user", "assistant", "steer", "assistant", "outcome"]);
    const requests = harness.current.model.requests;
    const steered = requests.findIndex((r) => r.lastUserText.includes("[[reply steered]]"));
    const queued = requests.findIndex((r) => r.lastUserText.includes("queued by button"));
    expect(steered).toBeGreaterThanOrEqual(0);
    expect(queued).toBeGreaterThan(steered);
    expect(await byTestId(page, "send").count()).toBe(1);
  });

  it("Stop interrupts the running turn; the next message runs", async () => {
    const { page } = await chromium.open();
    await openNewSession(page, harness.current, "stop");
    await send(page, "[[slow 300 100]]");
    await eventually(async () => (await assistantText(page)).includes("tok2")).toBe(true);
    await byTestId(page, "stop").click();
    expect(await waitForOutcomes(page, 1)).toEqual(["interrupted"]);
    expect(await assistantText(page)).not.toContain("tok300");
    await eventually(() => byTestId(page, "stop").count()).toBe(0);
    await send(page, "[[reply after the stop]]");
    expect(await waitForOutcomes(page, 2)).toEqual(["interrupted", "completed"]);
    expect(await assistantText(page)).toBe("after the stop");
  });

  it("a failed turn shows its outcome with the error and a hint", async () => {
    const { page } = await chromium.open();
    await openNewSession(page, harness.current, "failure");
    await send(page, "[[error 400]]");
    expect(await waitForOutcomes(page, 1)).toEqual(["failed"]);
    const shown = (await textsOf(byTestId(page, "turn-outcome"))).join(" ");
    expect(shown).toMatch(/failed/i);
    // The reason and the error (the demo provider's key, "scripted", is redacted in it).
    expect(shown).toContain("step-failed");
    expect(shown).toContain("HTTP 400");
    expect(shown).toMatch(/try again|send again|retry/i);
  });
});
