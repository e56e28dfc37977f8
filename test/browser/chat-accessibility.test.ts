import { rmSync } from "node:fs";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { screenshot, useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import {
  byTestId,
  eventually,
  openChat,
  openNewSession,
  send,
  waitForOutcomes,
  writeTurn,
} from "../support/chat-page.js";
import { gitWorktree } from "../support/git-worktree.js";

/** A git worktree with one commit: OpenCode keeps a step's changes only in one. */
const worktree = gitWorktree("ocb-chat-a11y-", { "notes.txt": "a\n" });
afterAll(() => rmSync(worktree, { recursive: true, force: true }));
const chromium = useBrowser();
const harness = useChatHarness({ directory: worktree });

const PHONE = { width: 390, height: 844 };

/** The serious and critical violations axe finds on the page as it is, one line each. */
async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes
          .slice(0, 4)
          .map((node) => node.target.join(" "))
          .join(" | ")}`,
    );
}

/** A conversation with a finished tool card and an edit waiting on its ask. */
async function toolCardAndAsk(page: Page, title: string): Promise<void> {
  await openNewSession(page, harness.current, title);
  await send(page, '[[tool bash {"command":"echo axe"}]] [[then ran it]]');
  await waitForOutcomes(page, 1);
  await send(page, writeTurn(join(worktree, `${title}.txt`), "new\n", "written"));
  await byTestId(page, "ask-permission").waitFor();
}

describe("axe-core on the chat's main screens", () => {
  it("the landing page, a conversation with a tool card and an ask, the review panel, the / list", async () => {
    const { page } = await chromium.open({ viewport: { width: 1280, height: 800 } });
    await openChat(page, harness.current.chatUrl);
    await byTestId(page, "composer-input").waitFor();
    expect(await seriousViolations(page), "landing page").toEqual([]);

    await toolCardAndAsk(page, "light");
    expect(await seriousViolations(page), "tool card and ask").toEqual([]);

    await byTestId(page, "allow-once").click();
    expect(await waitForOutcomes(page, 2)).toEqual(["completed", "completed"]);
    await byTestId(page, "review-open").click();
    await byTestId(page, "review-panel").waitFor();
    await eventually(() => byTestId(page, "changed-file-path").count()).toBeGreaterThan(0);
    expect(await seriousViolations(page), "review panel").toEqual([]);
    await page.keyboard.press("Escape");
    await eventually(() => byTestId(page, "review-panel").count()).toBe(0);
    // The review's shortcut, outside a text field: r opens the panel, and r again closes it.
    await byTestId(page, "theme-toggle").focus();
    await page.keyboard.press("r");
    await byTestId(page, "review-panel").waitFor();
    await page.keyboard.press("r");
    await eventually(() => byTestId(page, "review-panel").count()).toBe(0);

    await byTestId(page, "composer-input").fill("/");
    await byTestId(page, "suggestion-list").waitFor();
    expect(await seriousViolations(page), "the composer's / list").toEqual([]);
    await byTestId(page, "composer-input").fill("");

    await byTestId(page, "theme-toggle").focus();
    await page.keyboard.press("?");
    await byTestId(page, "shortcut-list").waitFor();
    expect(await seriousViolations(page), "the shortcut list").toEqual([]);
    await screenshot(page, "shortcut-list");
    await page.keyboard.press("Escape");
    await byTestId(page, "pairing-open").click();
    await byTestId(page, "pairing-show").click();
    await byTestId(page, "pairing-qr").waitFor();
    expect(await seriousViolations(page), "the pairing dialog").toEqual([]);
  });

  it("the dark theme, with a tool card and an ask, and a dialog", async () => {
    const { page } = await chromium.open({
      colorScheme: "dark",
      // A narrower desktop: the top bar's short labels ("Phone", "Changes") are checked too.
      viewport: { width: 1000, height: 760 },
    });
    await toolCardAndAsk(page, "dark");
    expect(await seriousViolations(page), "dark theme").toEqual([]);
    await byTestId(page, "pairing-open").click();
    await byTestId(page, "pairing-show").click();
    await byTestId(page, "pairing-qr").waitFor();
    expect(await seriousViolations(page), "the pairing dialog, dark").toEqual([]);
    await screenshot(page, "pairing-dialog-dark");
  });

  it("the side list on a phone (390×844), light and dark", async () => {
    const { page } = await chromium.open({ viewport: PHONE, isMobile: true, hasTouch: true });
    await harness.current.client.createSession({ title: "on a phone" });
    await openChat(page, harness.current.chatUrl);
    await byTestId(page, "sidebar-toggle").click();
    await eventually(() => byTestId(page, "session-item").first().isVisible()).toBe(true);
    expect(await seriousViolations(page), "side list on a phone").toEqual([]);
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await seriousViolations(page), "side list on a phone, dark").toEqual([]);
  });
});
