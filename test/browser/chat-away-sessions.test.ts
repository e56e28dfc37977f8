/**
 * "Needs you" for every session the page lists, not only the open one, in a real Chromium
 * against the real sidecar, the real opencode and the scripted model. With "Notify me" on and
 * the tab hidden: a turn that ends in a session that is not open is notified by that session's
 * name, the side list marks it finished, and a click on the notification opens it; an ask that
 * starts waiting in a session that is not open is notified at once and the list says it needs
 * an answer. A page opened (hidden) over sessions already finished and already waiting says
 * nothing of them, and still hears what changes after.
 */
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { AWAY_SPY } from "../support/away-spy.js";
import { screenshot, useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import {
  byTestId,
  eventually,
  openChat,
  openSession,
  send,
  sessionItem,
  textsOf,
  writeTurn,
} from "../support/chat-page.js";
import { turnGate } from "../support/turn-gate.js";

const chromium = useBrowser();
const harness = useChatHarness();

/** A list poll is every 2 s: this is more than two of them. */
const POLLS_MS = 5000;

interface Note {
  title: string;
  body: string;
  tag: string;
}

function notes(page: Page): Promise<Note[]> {
  return page.evaluate("window.__notes") as Promise<Note[]>;
}

/** "Notify me" from the status popover, as the reader turns it on (the click asks). */
async function turnOnNotify(page: Page): Promise<void> {
  await byTestId(page, "status-open").click();
  const toggle = byTestId(page, "notify-toggle");
  await toggle.click();
  await eventually(() => toggle.getAttribute("aria-pressed")).toBe("true");
  await page.keyboard.press("Escape");
}

describe("needs you, for every listed session", () => {
  it("notifies a turn's end and an ask in sessions that are not open, once", async () => {
    const { page, context } = await chromium.open({ viewport: { width: 1280, height: 800 } });
    await context.grantPermissions(["notifications"]);
    await page.addInitScript(AWAY_SPY);
    const { client, directory } = harness.current;
    // The titles are the reader's words (untrusted as model output is): text in the notification.
    const first = await client.createSession({ title: "first <b>job</b>" });
    const second = await client.createSession({ title: "second job" });
    await openChat(page, harness.current.chatUrl);
    await openSession(page, first.id);
    const title = await page.title();
    await turnOnNotify(page);

    // A turn in the first session, held open until the reader has opened the second and left
    // the tab: its end must find the tab hidden, however fast the machine.
    const gate = turnGate(directory);
    await send(page, `${gate.directive} [[slow 4 100]]`);
    await eventually(() => sessionItem(page, first.id).getAttribute("data-running")).toBe("true");
    await openSession(page, second.id);
    await page.evaluate("window.__setHidden(true)");
    gate.open();
    await eventually(() => notes(page)).toEqual([
      { title: "first <b>job</b> needs you", body: "The turn ended.", tag: first.id },
    ]);
    expect(page.url()).toContain(second.id);
    expect(await page.title()).toMatch(/^● /);
    const firstItem = sessionItem(page, first.id);
    await eventually(() => firstItem.getAttribute("data-finished")).toBe("true");
    expect(await textsOf(byTestId(firstItem, "session-finished"))).toEqual(["finished"]);
    expect(await firstItem.locator("b").count()).toBe(0);
    await screenshot(page, "chat-away-finished");

    // Its click opens the session it names; the tab, visible again, loses its mark.
    await page.evaluate("window.__lastNote.onclick(new Event('click'))");
    await page.evaluate("window.__setHidden(false)");
    await eventually(() => page.url()).toContain(first.id);
    await eventually(() => byTestId(firstItem, "session-finished").count()).toBe(0);
    expect(await firstItem.locator(".session-open").getAttribute("aria-current")).toBe("true");
    await eventually(() => page.title()).toBe(title);

    // Hidden again: an ask starts waiting in the second session (sent from another client).
    await page.evaluate("window.__setHidden(true)");
    await client.send(second.id, {
      text: writeTurn(join(directory, "away-ask.txt"), "hi\n", "wrote"),
      delivery: "queue",
    });
    await eventually(() => notes(page).then((all) => all.length)).toBe(2);
    expect((await notes(page))[1]).toEqual({
      title: "second job needs you",
      body: "An ask is waiting for your answer.",
      tag: second.id,
    });
    const secondItem = sessionItem(page, second.id);
    await eventually(() => secondItem.getAttribute("data-waiting")).toBe("true");
    expect(await textsOf(byTestId(secondItem, "session-waiting"))).toEqual(["needs your answer"]);
    await screenshot(page, "chat-away-waiting");

    // Polls more, nothing changed: nothing said twice.
    await page.waitForTimeout(POLLS_MS);
    expect(await notes(page)).toHaveLength(2);
    await page.evaluate("window.__setHidden(false)");
    await eventually(() => page.title()).toBe(title);

    // A fresh page, hidden from its start and notifying: the first session finished and the
    // second waiting before it opened, so it says nothing of either.
    const fresh = await context.newPage();
    await fresh.addInitScript(AWAY_SPY);
    await fresh.addInitScript(
      "window.Notification.permission = 'granted'; window.__setHidden(true);",
    );
    await openChat(fresh, harness.current.chatUrl);
    await eventually(() => sessionItem(fresh, second.id).getAttribute("data-waiting")).toBe("true");
    await fresh.waitForTimeout(POLLS_MS);
    expect(await notes(fresh)).toEqual([]);
    expect(await fresh.title()).not.toMatch(/^● /);

    // What changes after its first look is heard: the ask answered, the turn ends.
    const asks = (await client.getSession(second.id)).pendingAsks ?? [];
    expect(asks).toHaveLength(1);
    await client.replyPermission(second.id, asks[0]?.requestId ?? "", "once");
    await eventually(() => notes(fresh)).toEqual([
      { title: "second job needs you", body: "The turn ended.", tag: second.id },
    ]);
    await fresh.close();
  });
});
