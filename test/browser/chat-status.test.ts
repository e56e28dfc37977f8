/**
 * The web chat's status, in a real Chromium against the real opencode and the scripted model:
 * a turn's todo list shows in the todo panel and a second turn's rewrite replaces it live
 * (planted HTML in a todo stays text); the top bar's meter shows the tokens in context (and
 * says the demo model's catalog gives no limit); its popover's spending of the latest turn and
 * of the session is `client.context`'s; the project's MCP server that cannot start is listed as
 * failed (and the button warns). Away from the tab: with "Notify me" on and the page hidden, a
 * turn's end constructs a Notification and puts "● " before the title and a dot on the icon,
 * until the page is visible again; a click on the notification brings the session back; an ask
 * that starts waiting while hidden is notified at once.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { AWAY_SPY } from "../support/away-spy.js";
import { screenshot, screenshotsWideAndPhone, useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import {
  byTestId,
  eventually,
  openNewSession,
  send,
  textsOf,
  waitForOutcomes,
  writeTurn,
} from "../support/chat-page.js";

/** A project whose one MCP server cannot start (no such program): OpenCode says "failed". */
function project(): string {
  const directory = mkdtempSync(join(tmpdir(), "ocb-chat-status-"));
  writeFileSync(
    join(directory, "opencode.json"),
    JSON.stringify({ mcp: { broken: { type: "local", command: ["/nonexistent/mcp-server"] } } }),
  );
  return directory;
}

const directory = project();
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const chromium = useBrowser();
const harness = useChatHarness({ directory });

/** Model output is untrusted: were this HTML, the page would run it (and CSP would complain). */
const PLANTED = `<img src=x onerror="window.__planted='img'"><script>window.__planted='script'</script>`;

function todoTurn(todos: { content: string; status: string }[], reply: string): string {
  const list = todos.map((todo) => ({ ...todo, priority: "medium" }));
  return `[[tool todowrite ${JSON.stringify({ todos: list })}]] [[then ${reply}]]`;
}

async function todoTexts(page: Page): Promise<string[]> {
  return textsOf(byTestId(byTestId(page, "todo-panel"), "todo-item").locator(".todo-text"));
}

describe("the session's status", () => {
  it("shows the todo list live, the context meter, what was spent and the MCP servers", async () => {
    const { page } = await chromium.open({ viewport: { width: 1280, height: 800 } });
    const sessionId = await openNewSession(page, harness.current, "status");
    expect(await byTestId(page, "todo-panel").count()).toBe(0);

    await send(
      page,
      todoTurn(
        [
          { content: "Read the code", status: "completed" },
          { content: PLANTED, status: "in_progress" },
          { content: "Write the tests", status: "pending" },
        ],
        "planned",
      ),
    );
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    await eventually(() => todoTexts(page)).toEqual(["Read the code", PLANTED, "Write the tests"]);
    const panel = byTestId(page, "todo-panel");
    expect(await textsOf(byTestId(panel, "todo-summary"))).toEqual([`Todos 1/3 · ${PLANTED}`]);
    // The planted markup is text: no element made from it, nothing of it ran.
    expect(await panel.locator("img, script").count()).toBe(0);
    expect(await page.evaluate("window.__planted")).toBeUndefined();

    // A second turn rewrites the list: the panel follows it (todo.updated, live).
    await send(
      page,
      todoTurn(
        [
          { content: "Read the code", status: "completed" },
          { content: "Fix the bug", status: "completed" },
          { content: "Write the tests", status: "in_progress" },
        ],
        "progress",
      ),
    );
    expect(await waitForOutcomes(page, 2)).toEqual(["completed", "completed"]);
    await eventually(() => todoTexts(page)).toEqual([
      "Read the code",
      "Fix the bug",
      "Write the tests",
    ]);
    expect(
      await byTestId(panel, "todo-item").evaluateAll((items) =>
        items.map((item) => item.getAttribute("data-status")),
      ),
    ).toEqual(["completed", "completed", "in_progress"]);
    // Folds to its one line, and opens again, from the keyboard.
    await byTestId(panel, "todo-summary").focus();
    await page.keyboard.press("Enter");
    await eventually(() => panel.getAttribute("open")).toBeNull();
    await page.keyboard.press("Enter");
    await eventually(() => panel.getAttribute("open")).toBe("");

    // The meter and its popover: the numbers are the sidecar's.
    const context = await harness.current.client.context(sessionId);
    expect(context.context?.tokens).toBeGreaterThan(0);
    const open = byTestId(page, "status-open");
    await eventually(() => open.getAttribute("aria-label")).toContain(
      `context ${context.context?.tokens.toLocaleString("en-US")} tokens`,
    );
    await open.click();
    const popover = byTestId(page, "status-popover");
    const shownContext = byTestId(popover, "status-context");
    expect(await shownContext.getAttribute("data-tokens")).toBe(String(context.context?.tokens));
    if (context.context?.limit === undefined) {
      // The demo model's catalog entry has no limit: the meter says so rather than guess one.
      expect(await textsOf(shownContext)).toEqual([
        expect.stringContaining("the model's catalog gives no limit"),
      ]);
    } else {
      expect(await shownContext.getAttribute("data-limit")).toBe(String(context.context.limit));
    }
    const tokensOf = (usage: typeof context.spent) =>
      usage === undefined
        ? undefined
        : String(usage.tokens.input + usage.tokens.output + usage.tokens.reasoning);
    const turnSpent = byTestId(popover, "status-turn-spent");
    const sessionSpent = byTestId(popover, "status-session-spent");
    await eventually(() => sessionSpent.getAttribute("data-tokens")).toBe(tokensOf(context.spent));
    expect(Number(await sessionSpent.getAttribute("data-tokens"))).toBeGreaterThan(0);
    expect(await turnSpent.getAttribute("data-tokens")).toBe(tokensOf(context.turn?.spent));
    expect(await sessionSpent.getAttribute("data-cost")).toBe(String(context.spent?.cost));
    expect(await turnSpent.getAttribute("data-cost")).toBe(String(context.turn?.spent?.cost));

    // The MCP server that cannot start: listed, failed, and the button warns.
    const server = byTestId(popover, "mcp-server");
    await eventually(() => server.getAttribute("data-status")).toBe("failed");
    expect(await textsOf(server.locator(".mcp-name"))).toEqual(["broken"]);
    expect(await open.getAttribute("class")).toContain("alarm");
    expect(await open.getAttribute("aria-label")).toContain("an MCP server needs attention");
    await screenshotsWideAndPhone(page, "chat-status");

    // Escape folds the popover and gives the keyboard back to its button.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.keyboard.press("Escape");
    await eventually(() => popover.count()).toBe(0);
    expect(await page.evaluate('document.activeElement.getAttribute("data-testid")')).toBe(
      "status-open",
    );

    // A phone: no horizontal scroll, thumb-sized controls.
    await page.setViewportSize({ width: 390, height: 844 });
    await open.click();
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    for (const control of ["status-open", "notify-toggle", "todo-summary"]) {
      const box = await byTestId(page, control).boundingBox();
      expect(box?.height, control).toBeGreaterThanOrEqual(44);
      expect(box?.width, control).toBeGreaterThanOrEqual(44);
    }
    // Folded on a phone until opened: then the list, the conversation still above it.
    await page.keyboard.press("Escape");
    await byTestId(panel, "todo-summary").click();
    await eventually(() => panel.getAttribute("open")).toBe("");
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await screenshot(page, "chat-status-phone-todos");
  });

  it("says the session needs you while the tab is hidden, and notifies when asked to", async () => {
    const { page, context } = await chromium.open({ viewport: { width: 1280, height: 800 } });
    await context.grantPermissions(["notifications"]);
    await page.addInitScript(AWAY_SPY);
    const sessionId = await openNewSession(page, harness.current, "away");
    const title = await page.title();
    expect(title).not.toMatch(/^●/);
    // Nothing is asked on load: the reader turns it on in the status popover (the click asks).
    expect(await page.evaluate("window.__asked")).toBe(0);
    await byTestId(page, "status-open").click();
    const toggle = byTestId(page, "notify-toggle");
    expect(await toggle.getAttribute("aria-pressed")).toBe("false");
    await toggle.click();
    await eventually(() => toggle.getAttribute("aria-pressed")).toBe("true");
    expect(await page.evaluate("window.__asked")).toBe(1);
    await page.keyboard.press("Escape");

    // Hidden first: the turn's end must find the tab hidden, however soon it comes.
    await page.evaluate("window.__setHidden(true)");
    await send(page, "[[slow 10 100]]");
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    await eventually(() => page.evaluate("window.__notes.length")).toBe(1);
    expect(await page.evaluate("window.__notes[0]")).toEqual({
      title: "away needs you",
      body: "The turn ended.",
      tag: sessionId,
    });
    expect(await page.title()).toBe(`● ${title}`);
    expect(await page.locator('link[rel="icon"]').getAttribute("href")).toMatch(
      /^data:image\/svg\+xml,/,
    );

    // A click on the notification: the tab comes back, the session open; the mark goes.
    await page.evaluate("window.__lastNote.onclick(new Event('click'))");
    await page.evaluate("window.__setHidden(false)");
    await eventually(() => page.title()).toBe(title);
    expect(await page.locator('link[rel="icon"]').getAttribute("href")).toBe("data:,");
    expect(page.url()).toContain(sessionId);

    // Visible: a turn's end is seen, nothing is notified.
    await send(page, "[[reply seen]]");
    expect(await waitForOutcomes(page, 2)).toEqual(["completed", "completed"]);
    expect(await page.evaluate("window.__notes.length")).toBe(1);
    expect(await page.title()).toBe(title);

    // Hidden again, an edit asks: that is notified as soon as it waits, not at the turn's end.
    await page.evaluate("window.__setHidden(true)");
    await send(page, writeTurn(join(harness.current.directory, "away.txt"), "hi\n", "wrote"));
    await eventually(() => page.evaluate("window.__notes.length")).toBe(2);
    expect(await page.evaluate("window.__notes[1].body")).toBe(
      "An ask is waiting for your answer.",
    );
    expect(await page.title()).toBe(`● ${title}`);
    await page.evaluate("window.__setHidden(false)");
    await eventually(() => page.title()).toBe(title);
    await byTestId(page, "allow-once").click();
    expect(await waitForOutcomes(page, 3)).toEqual(["completed", "completed", "completed"]);
    // The turn ended while the tab was visible: nothing more.
    expect(await page.evaluate("window.__notes.length")).toBe(2);
  });
});
