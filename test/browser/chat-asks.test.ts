/**
 * Asks in the web chat, in a real Chromium against the real opencode: a permission shows its
 * tool, patterns and diff, approved once (the file is written) or rejected with a message (sent
 * with the reply; no file), or allowed always (the next edit is not asked); a question answered
 * by its options, or dismissed; and two tabs on one session stay in sync, an ask answered in
 * one vanishing from the other.
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

  it("a permission rejected with a message: the message sent, no file, the tool failed", async () => {
    const { page } = await chromium.open();
    await openNewSession(page, harness.current, "reject");
    const file = join(harness.current.directory, "rejected.txt");
    await send(page, writeTurn(file, "never\n", "told no"));
    const ask = await waitForPermission(page);
    await byTestId(ask, "reject-message").fill("not this file, thanks");
    // The reply as the page sends it to the sidecar (OpenCode 1.18's /api does not pass the
    // message on to the model: its tool result only says the write failed).
    const replied = page.waitForRequest(
      (request) => request.method() === "POST" && request.url().includes("/permissions/"),
    );
    await byTestId(ask, "reject").click();
    expect((await replied).postDataJSON()).toEqual({
      reply: "reject",
      message: "not this file, thanks",
    });
    await eventually(() => byTestId(page, "ask-permission").count()).toBe(0);
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    expect(existsSync(file)).toBe(false);
    const card = byTestId(page, "part-tool");
    expect(await card.getAttribute("data-tool")).toBe("write");
    expect(await card.getAttribute("data-state")).toBe("failed");
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

  it("Always: the next edit of the session is not asked", async () => {
    const { page } = await chromium.open();
    await openNewSession(page, harness.current, "always");
    const first = join(harness.current.directory, "always-1.txt");
    await send(page, writeTurn(first, "one\n", "first"));
    await byTestId(await waitForPermission(page), "allow-always").click();
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    expect(readFileSync(first, "utf8")).toBe("one\n");
    const second = join(harness.current.directory, "always-2.txt");
    await send(page, writeTurn(second, "two\n", "second"));
    expect(await waitForOutcomes(page, 2)).toEqual(["completed", "completed"]);
    expect(readFileSync(second, "utf8")).toBe("two\n");
    expect(await assistantText(page)).toContain("second");
  });

  it("a question dismissed: it vanishes and the turn ends", async () => {
    const { page } = await chromium.open();
    await openNewSession(page, harness.current, "question dismissed");
    await send(page, `${QUESTION} [[then went on]]`);
    const ask = byTestId(page, "ask-question");
    await ask.waitFor();
    const dismissed = page.waitForRequest(
      (request) => request.method() === "POST" && /\/questions\/[^/]+\/reject$/.test(request.url()),
    );
    await byTestId(ask, "question-reject").click();
    await dismissed;
    await eventually(() => byTestId(page, "ask-question").count()).toBe(0);
    expect(await waitForOutcomes(page, 1)).toHaveLength(1);
  });
});
