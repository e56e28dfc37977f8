/**
 * Moving between sessions in the web chat, in a real Chromium against the real opencode
 * (issue 29, items 3, 4 and 5): an error banner belongs to the session it came from; "+ New
 * session" shows progress, makes one session per click (a double click included) and opens it
 * ready to type in; and the composer keeps a draft per session (text and attachments), given
 * back when the session is opened again and cleared by a send.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page, Route } from "playwright-core";
import { describe, expect, it } from "vitest";
import { screenshot, useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import {
  byTestId,
  eventually,
  openChat,
  openSession,
  send,
  textsOf,
  waitForOutcomes,
} from "../support/chat-page.js";

// A 1x1 PNG.
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const chromium = useBrowser();
const harness = useChatHarness();

const DESKTOP = { width: 1280, height: 800 };

const focusedTestId = (page: Page) =>
  page.evaluate<string | null>(`document.activeElement?.getAttribute("data-testid") ?? null`);

const alerts = async (page: Page) => (await textsOf(page.getByRole("alert"))).join(" ");

async function sessionIds(): Promise<string[]> {
  return (await harness.current.client.listSessions()).map((session) => session.id);
}

describe("moving between sessions", () => {
  it("an error banner belongs to its session: gone in another, back in its own", async () => {
    const { page, expectErrors } = await chromium.open({ viewport: DESKTOP });
    // The refused send's answer.
    expectErrors(/status of 400/);
    const failing = (await harness.current.client.createSession({ title: "failing" })).id;
    const fresh = (await harness.current.client.createSession({ title: "fresh" })).id;
    await openChat(page, harness.current.chatUrl);
    await openSession(page, failing);
    const path = byTestId(page, "attach-path");
    await path.fill("../outside-the-directory.txt");
    await path.press("Enter");
    const input = byTestId(page, "composer-input");
    await input.fill("[[reply never sent]]");
    await input.press("Enter");
    await eventually(() => alerts(page)).toContain("outside the session directory");

    await openSession(page, fresh);
    await eventually(() => alerts(page), "the other session's error is not shown").toBe("");
    await screenshot(page, "session-switch-no-foreign-error");

    await openSession(page, failing);
    await eventually(() => alerts(page)).toContain("outside the session directory");
  });

  it("+ New session shows progress, makes one session for a double click, opens it ready to type", async () => {
    const { page } = await chromium.open({ viewport: DESKTOP });
    await openChat(page, harness.current.chatUrl);
    const before = await sessionIds();
    // Hold the creation until the button has been looked at (and clicked again).
    let release: (() => void) | undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let creations = 0;
    await page.route("**/v1/sessions", async (route: Route) => {
      if (route.request().method() !== "POST") return route.continue();
      creations++;
      await held;
      return route.continue();
    });
    const button = byTestId(page, "new-session");
    await button.dblclick();
    await eventually(() => button.getAttribute("aria-busy")).toBe("true");
    expect(await button.isDisabled()).toBe(true);
    expect((await textsOf(button)).join(" ")).toMatch(/Creating/);
    // A third click while it is busy: nothing more is created.
    await button.click({ force: true });
    await screenshot(page, "new-session-creating");
    release?.();
    await eventually(async () => (await sessionIds()).length).toBe(before.length + 1);
    expect(creations).toBe(1);
    const [created] = (await sessionIds()).filter((id) => !before.includes(id));
    await eventually(() => page.evaluate<string>("location.hash")).toContain(created);
    // Its empty state, and the composer with the focus in it.
    await byTestId(page, "conversation-empty").waitFor();
    await eventually(() => focusedTestId(page)).toBe("composer-input");
    expect(await button.isDisabled()).toBe(false);
    await page.keyboard.type("[[reply typed at once]]");
    await page.keyboard.press("Enter");
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    expect(await byTestId(page, "conversation-empty").count()).toBe(0);
    await screenshot(page, "new-session-ready");
  });

  it("a draft per session: text and attachments kept across a switch, cleared by a send", async () => {
    const { page } = await chromium.open({ viewport: DESKTOP });
    const first = (await harness.current.client.createSession({ title: "draft one" })).id;
    const second = (await harness.current.client.createSession({ title: "draft two" })).id;
    writeFileSync(join(harness.current.directory, "draft-pixel.png"), Buffer.from(PNG, "base64"));
    await openChat(page, harness.current.chatUrl);
    await openSession(page, first);
    const input = byTestId(page, "composer-input");
    await input.fill("[[reply drafted]] half written");
    const path = byTestId(page, "attach-path");
    await path.fill("draft-pixel.png");
    await path.press("Enter");
    await byTestId(page, "attach-image").setInputFiles({
      name: "pasted.png",
      mimeType: "image/png",
      buffer: Buffer.from(PNG, "base64"),
    });
    await byTestId(page, "image-preview").waitFor();

    await openSession(page, second);
    expect(await input.inputValue()).toBe("");
    expect(await byTestId(page, "attachment-chip").count()).toBe(0);
    expect(await byTestId(page, "image-preview").count()).toBe(0);
    await input.fill("the second's own draft");

    await openSession(page, first);
    await eventually(() => input.inputValue()).toBe("[[reply drafted]] half written");
    expect(await textsOf(byTestId(page, "attachment-chip"))).toEqual([
      expect.stringContaining("draft-pixel.png"),
    ]);
    expect(await byTestId(page, "image-preview").count()).toBe(1);
    await screenshot(page, "draft-restored");

    await openSession(page, second);
    await eventually(() => input.inputValue()).toBe("the second's own draft");

    await openSession(page, first);
    await eventually(() => input.inputValue()).toBe("[[reply drafted]] half written");
    await send(page, (await input.inputValue()) ?? "");
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    await openSession(page, second);
    await openSession(page, first);
    expect(await input.inputValue()).toBe("");
    expect(await byTestId(page, "attachment-chip").count()).toBe(0);
    expect(await byTestId(page, "image-preview").count()).toBe(0);
  });
});
