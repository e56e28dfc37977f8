/**
 * Asks in the web chat, in a real Chromium against the real opencode: a permission shows its
 * tool, patterns and diff, approved once (the file is written) or rejected with a message (no
 * file; the model is told); a question answered by its options; and two tabs on one session
 * stay in sync, an ask answered in one vanishing from the other.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { screenshot, useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import {
  answerQuestion,
  assistantText,
  byTestId,
  eventually,
  openChat,
  openNewSession,
  openSession,
  QUESTION,
  send,
  slowText,
  textsOf,
  waitForOutcomes,
  writeTurn,
} from "../support/chat-page.js";

const chromium = useBrowser();
const harness = useChatHarness();

async function waitForPermission(page: Page) {
  const ask = byTestId(page, "ask-permission");
  await ask.waitFor();
  return ask;
}

describe("asks in the web chat", () => {
  it("a permission shows its tool, patterns and diff; allowed once, the file is written", async () => {
    const { page } = await chromium.open({ viewport: { width: 1100, height: 900 } });
    await openNewSession(page, harness.current, "approve");
    const file = join(harness.current.directory, "approved.txt");
    await send(page, writeTurn(file, "hello from the chat\n", "wrote it"));
    const ask = await waitForPermission(page);
    expect(await ask.getAttribute("data-request-id")).toMatch(/\S/);
    const shown = (await textsOf(ask)).join(" ");
    expect(shown).toContain("edit");
    expect(shown).toContain("approved.txt");
    const diff = byTestId(ask, "part-diff");
    expect((await textsOf(diff)).join(" ")).toContain("hello from the chat");
    await screenshot(page, "permission-diff");
    await byTestId(ask, "allow-once").click();
    await eventually(() => byTestId(page, "ask-permission").count()).toBe(0);
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    expect(await assistantText(page)).toContain("wrote it");
    expect(readFileSync(file, "utf8")).toBe("hello from the chat\n");
    // The edit is shown as a diff in the conversation too.
    expect(await byTestId(byTestId(page, "conversation"), "part-diff").count()).toBeGreaterThan(0);
  });

  it("a permission rejected with a message: no file, the tool failed, the model is told", async () => {
    const { page } = await chromium.open();
    await openNewSession(page, harness.current, "reject");
    const file = join(harness.current.directory, "rejected.txt");
    await send(page, writeTurn(file, "never\n", "told no"));
    const ask = await waitForPermission(page);
    await byTestId(ask, "reject-message").fill("not this file, thanks");
    await byTestId(ask, "reject").click();
    await eventually(() => byTestId(page, "ask-permission").count()).toBe(0);
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    expect(existsSync(file)).toBe(false);
    const card = byTestId(page, "part-tool");
    expect(await card.getAttribute("data-tool")).toBe("write");
    expect(await card.getAttribute("data-state")).toBe("failed");
    const told = harness.current.model.requests.some((request) =>
      JSON.stringify(request.messages).includes("not this file, thanks"),
    );
    expect(told).toBe(true);
  });

  it("a question is answered by choosing an option", async () => {
    const { page } = await chromium.open();
    await openNewSession(page, harness.current, "question");
    await send(page, `${QUESTION} [[then answered]]`);
    const ask = byTestId(page, "ask-question");
    await ask.waitFor();
    expect((await textsOf(ask)).join(" ")).toContain("Pick one");
    const options = byTestId(ask, "question-option");
    expect(await options.count()).toBe(2);
    await answerQuestion(ask, "beta");
    await eventually(() => byTestId(page, "ask-question").count()).toBe(0);
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    expect(await assistantText(page)).toContain("answered");
    const told = harness.current.model.requests.some((request) =>
      JSON.stringify(request.messages).includes("beta"),
    );
    expect(told).toBe(true);
  });

  it("two tabs stay in sync: the same stream, an ask answered in one vanishes in the other", async () => {
    const one = (await chromium.open()).page;
    const two = (await chromium.open()).page;
    const id = await openNewSession(one, harness.current, "two tabs");
    await openChat(two, harness.current.chatUrl);
    await openSession(two, id);
    await send(one, `[[slow 15 40]]`);
    expect(await waitForOutcomes(two, 1)).toEqual(["completed"]);
    expect(await assistantText(two)).toBe(slowText(15));
    await send(two, `${QUESTION} [[then in sync]]`);
    await byTestId(one, "ask-question").waitFor();
    await byTestId(two, "ask-question").waitFor();
    await answerQuestion(byTestId(one, "ask-question"), "alpha");
    await eventually(() => byTestId(two, "ask-question").count()).toBe(0);
    await eventually(() => byTestId(one, "ask-question").count()).toBe(0);
    for (const page of [one, two]) {
      expect(await waitForOutcomes(page, 2)).toEqual(["completed", "completed"]);
      expect(await assistantText(page)).toContain("in sync");
    }
    expect(await textsOf(byTestId(one, "message-user"))).toEqual(
      await textsOf(byTestId(two, "message-user")),
    );
  });
});
