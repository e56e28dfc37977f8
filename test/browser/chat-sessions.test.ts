/**
 * The session list of the web chat, in a real Chromium against the real opencode: each entry
 * shows its title and directory, a running badge while a turn runs and a waiting-for-you badge
 * while an ask waits (answered from elsewhere, it goes); a session is renamed in place (Enter
 * saves, Escape cancels), and the name is the sidecar's.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { screenshot, useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import {
  byTestId,
  eventually,
  openChat,
  openNewSession,
  openSession,
  send,
  sessionItem,
  textsOf,
  waitForOutcomes,
  writeTurn,
} from "../support/chat-page.js";

const chromium = useBrowser();
const harness = useChatHarness();

describe("the session list", () => {
  it("shows running and waiting-for-you badges, as they come and go", async () => {
    const { page } = await chromium.open({ viewport: { width: 1100, height: 700 } });
    const { client, directory } = harness.current;
    const running = await client.createSession({ title: "a long turn" });
    const waiting = await client.createSession({ title: "an ask waits" });
    await openChat(page, harness.current.chatUrl);
    const runningItem = sessionItem(page, running.id);
    const waitingItem = sessionItem(page, waiting.id);
    // The list is drawn once its first page is read, after the list's frame: wait for them.
    await runningItem.waitFor();
    await waitingItem.waitFor();
    expect((await textsOf(runningItem)).join(" ")).toContain("a long turn");
    expect((await textsOf(runningItem)).join(" ")).toContain(directory.split("/").at(-1));
    expect(await runningItem.getAttribute("data-running")).toBe("false");
    expect(await waitingItem.getAttribute("data-waiting")).toBe("false");

    // Sent from elsewhere (another client): the list learns of it without a reload.
    await client.send(running.id, { text: "[[slow 400 50]]", delivery: "queue" });
    await client.send(waiting.id, {
      text: writeTurn(join(directory, "badge.txt"), "badge\n", "wrote"),
      delivery: "queue",
    });
    await eventually(() => runningItem.getAttribute("data-running")).toBe("true");
    await eventually(() => waitingItem.getAttribute("data-waiting")).toBe("true");
    await screenshot(page, "session-list");

    const asks = (await client.getSession(waiting.id)).pendingAsks ?? [];
    expect(asks).toHaveLength(1);
    await client.replyPermission(waiting.id, asks[0]?.requestId ?? "", "once");
    await eventually(() => waitingItem.getAttribute("data-waiting")).toBe("false");
    await client.interrupt(running.id);
    await eventually(() => runningItem.getAttribute("data-running")).toBe("false");
  });

  it("renames the open session: Enter saves (in the sidecar too), Escape cancels", async () => {
    const { page } = await chromium.open();
    const id = await openNewSession(page, harness.current, "before");
    expect(await textsOf(byTestId(page, "session-title"))).toEqual([
      expect.stringContaining("before"),
    ]);
    await byTestId(page, "rename-session").click();
    const input = byTestId(page, "rename-input");
    await input.fill("after the rename");
    await input.press("Enter");
    await eventually(async () => textsOf(byTestId(page, "session-title"))).toEqual([
      expect.stringContaining("after the rename"),
    ]);
    await eventually(async () => (await textsOf(sessionItem(page, id))).join(" ")).toContain(
      "after the rename",
    );
    expect((await harness.current.client.getSession(id)).title).toBe("after the rename");

    await byTestId(page, "rename-session").click();
    await byTestId(page, "rename-input").fill("never saved");
    await byTestId(page, "rename-input").press("Escape");
    expect(await byTestId(page, "rename-input").count()).toBe(0);
    expect((await textsOf(byTestId(page, "session-title"))).join(" ")).toContain(
      "after the rename",
    );
    expect((await harness.current.client.getSession(id)).title).toBe("after the rename");
  });

  it("a new session from the button opens empty and runs its own turns", async () => {
    const { page } = await chromium.open();
    const first = await openNewSession(page, harness.current, "the first");
    await send(page, "[[reply in the first]]");
    await waitForOutcomes(page, 1);
    // The list as the sidecar has it, drawn (a poll may not have drawn the newest yet).
    const before = (await harness.current.client.listSessions()).length;
    await eventually(() => byTestId(page, "session-item").count()).toBe(before);
    await byTestId(page, "new-session").click();
    await eventually(() => byTestId(page, "session-item").count()).toBe(before + 1);
    await eventually(() => byTestId(page, "message-assistant").count()).toBe(0);
    await send(page, "[[reply in the second]]");
    await waitForOutcomes(page, 1);
    await openSession(page, first);
    await eventually(async () => textsOf(byTestId(page, "part-text"))).toEqual(["in the first"]);
  });
});
