/**
 * A backend without a terminal (`capabilities.terminal: false`; serve-legacy here, which the
 * harness starts as cheaply as serve), in a real Chromium against the real sidecar and
 * OpenCode: the Terminal button opens a panel that says plainly the backend has no terminal
 * and what to do instead, draws no terminal and opens no terminal socket (which the sidecar
 * would refuse, 422).
 */
import { describe, expect, it } from "vitest";
import { screenshot, useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import { byTestId, eventually, openNewSession } from "../support/chat-page.js";
import { recordPageSockets } from "../support/page-sockets.js";

const chromium = useBrowser();
const harness = useChatHarness({ backend: "serve-legacy" });

describe("the terminal panel on a backend without a terminal", () => {
  it("says the backend has no terminal, and opens neither a terminal nor its socket", async () => {
    const { context, page } = await chromium.open({ viewport: { width: 1280, height: 800 } });
    // Every WebSocket the page opens, to see that none is a terminal's.
    await recordPageSockets(context);
    const id = await openNewSession(page, harness.current, "no terminal");
    const info = await harness.current.client.getSession(id);
    expect(info.capabilities?.terminal).toBe(false);

    await byTestId(page, "terminal-open").click();
    const panel = byTestId(page, "terminal-panel");
    await eventually(() => panel.getByRole("status").textContent()).toMatch(
      /^This session's backend \(serve-legacy\) has no terminal: run commands through the agent, or start the sidecar with the serve backend\.$/,
    );
    expect(await byTestId(page, "terminal-screen").count()).toBe(0);
    expect(await page.locator(".xterm").count()).toBe(0);
    expect(
      await page.evaluate(
        `window.__sockets.filter((socket) => socket.url.includes("/terminal")).length`,
      ),
    ).toBe(0);
    await screenshot(page, "chat-no-terminal");

    // The panel closes as any other, the focus back on its button.
    await page.getByRole("button", { name: "Close the terminal (the shell is kept)" }).click();
    await eventually(() => panel.count()).toBe(0);
    await eventually(() => page.evaluate("document.activeElement?.dataset.testid")).toBe(
      "terminal-open",
    );
  });
});
