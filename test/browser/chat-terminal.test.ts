/**
 * The terminal panel in the web chat, in a real Chromium against the real sidecar, the real
 * opencode's PTY and the scripted model: a command runs and its output shows; resizing the
 * window changes what `stty size` says; a title a program sets (OSC 0) reaches neither the
 * page's title nor its markup; Shift+Escape leaves the terminal; the socket closed under the
 * page reconnects to the same shell, its output shown once, and so does a reload (a shell
 * variable set before is there after, and so is the output shown before); a phone's sheet
 * fits the screen with thumb-sized controls.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { screenshot, screenshotsWideAndPhone, useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import { byTestId, eventually, openNewSession } from "../support/chat-page.js";
import { recordPageSockets } from "../support/page-sockets.js";

const chromium = useBrowser();
const harness = useChatHarness();

/** The terminal's screen as text (xterm's DOM rows). */
function screenText(page: Page): Promise<string> {
  return page.evaluate(
    `(() => { const rows = document.querySelector('[data-testid="terminal-screen"] .xterm-rows'); return rows ? rows.innerText : ""; })()`,
  );
}

async function run(page: Page, command: string): Promise<void> {
  await page.keyboard.type(command);
  await page.keyboard.press("Enter");
}

async function openTerminal(page: Page, status: RegExp): Promise<void> {
  await byTestId(page, "terminal-open").click();
  await eventually(() => byTestId(page, "terminal-status").textContent()).toMatch(status);
  // xterm takes the keyboard once the shell runs.
  await eventually(() =>
    page.evaluate(`document.activeElement?.classList.contains("xterm-helper-textarea")`),
  ).toBe(true);
}

/** The last "ROWS COLS" `stty size` printed. */
async function sttySize(page: Page, marker: string): Promise<string | undefined> {
  await run(page, `echo ${marker}-$(stty size | tr ' ' x)-end`);
  let size: string | undefined;
  await eventually(async () => {
    size = new RegExp(`${marker}-(\\d+x\\d+)-end`).exec(await screenText(page))?.[1];
    return size;
  }).toBeDefined();
  return size;
}

describe("the terminal panel", () => {
  it("runs a command, resizes, keeps its title out of the page, and keeps its shell across a dropped socket and a reload", async () => {
    const { context, page } = await chromium.open({ viewport: { width: 1280, height: 800 } });
    // Every WebSocket the page opens, to close the terminal's from under it.
    await recordPageSockets(context);
    await openNewSession(page, harness.current, "terminal");
    const title = await page.title();
    await openTerminal(page, /^Connected$/);

    await run(page, "echo hello-$((6*7))");
    await eventually(() => screenText(page)).toContain("hello-42");

    // A program's title (OSC 0) with markup in it: not the page's title, no element made.
    await run(
      page,
      `printf '\\033]0;<img src=x onerror="window.__title=1">pwned\\007'; echo osc-done`,
    );
    await eventually(() => screenText(page)).toContain("osc-done");
    expect(await page.title()).toBe(title);
    expect(await page.locator("img[src=x]").count()).toBe(0);
    expect(await page.evaluate("window.__title")).toBeUndefined();

    // The window's size reaches the shell.
    const wide = await sttySize(page, "wide");
    await page.setViewportSize({ width: 1000, height: 600 });
    await eventually(async () => (await sttySize(page, "narrower")) !== wide).toBe(true);
    await page.setViewportSize({ width: 1280, height: 800 });

    await run(page, "KEPT=kept-$((40+2))-value");
    await screenshotsWideAndPhone(page, "chat-terminal");

    // Shift+Escape leaves the terminal for the panel's close button.
    await page.keyboard.press("Shift+Escape");
    await eventually(() =>
      page.evaluate("document.activeElement?.getAttribute('aria-label')"),
    ).toBe("Close the terminal (the shell is kept)");

    await byTestId(page, "terminal-screen").click();
    await run(page, 'echo "before-drop-$((1+1))"');
    await eventually(() => screenText(page)).toContain("before-drop-2");

    // The socket closes under the page: "Connection lost", then the same shell again.
    await page.evaluate(
      `window.__sockets.filter((socket) => socket.url.includes("/terminal")).forEach((socket) => socket.close(4000, "test"))`,
    );
    await eventually(() => byTestId(page, "terminal-status").textContent()).toMatch(
      /^Connection lost/,
    );
    await eventually(() => byTestId(page, "terminal-status").textContent()).toBe(
      "Connected (the same shell as before)",
    );
    // The sidecar sends the shell's scrollback first, and the screen started over: shown once.
    await eventually(() => screenText(page)).toContain("before-drop-2");
    expect((await screenText(page)).split("before-drop-2")).toHaveLength(2);
    await byTestId(page, "terminal-screen").click();
    await run(page, 'echo "after-drop:$KEPT"');
    await eventually(() => screenText(page)).toContain("after-drop:kept-42-value");

    // A reload: the same shell again, its variable still set.
    await page.reload();
    await byTestId(page, "composer-input").waitFor();
    await openTerminal(page, /^Connected \(the same shell as before\)$/);
    // What the terminal showed before the reload is there again (the sidecar's scrollback).
    await eventually(() => screenText(page)).toContain("after-drop:kept-42-value");
    expect((await screenText(page)).split("after-drop:kept-42-value")).toHaveLength(2);
    await run(page, 'echo "after-reload:$KEPT"');
    await eventually(() => screenText(page)).toContain("after-reload:kept-42-value");
    await screenshot(page, "chat-terminal-after-reload");

    // On a phone: a full-screen sheet, no sideways scroll, the close button a thumb's size.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    const close = page.getByRole("button", { name: "Close the terminal (the shell is kept)" });
    expect((await close.boundingBox())?.height).toBeGreaterThanOrEqual(44);
    await close.click();
    await eventually(() => byTestId(page, "terminal-panel").count()).toBe(0);
    // The focus goes back to what opened it.
    await eventually(() => page.evaluate("document.activeElement?.dataset.testid")).toBe(
      "terminal-open",
    );
    expect((await byTestId(page, "terminal-open").boundingBox())?.height).toBeGreaterThanOrEqual(
      44,
    );
  });
  it("copies the selection with Ctrl+Shift+C and pastes with Ctrl+Shift+V, as desktop terminals do", async () => {
    const { context, page } = await chromium.open({ viewport: { width: 1280, height: 800 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await openNewSession(page, harness.current, "terminal clipboard");
    await openTerminal(page, /^Connected$/);
    await run(page, "echo copy-$((6*7))-me");
    await eventually(() => screenText(page)).toContain("copy-42-me");

    // A drag over the printed word selects it; the keys copy it.
    const row = page.locator('[data-testid="terminal-screen"] .xterm-rows > div', {
      hasText: /^copy-42-me/,
    });
    const box = await row.boundingBox();
    if (box === null) throw new Error("the printed row is not on screen");
    await page.mouse.move(box.x + 1, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width - 1, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await page.keyboard.press("Control+Shift+KeyC");
    await eventually(() => page.evaluate("navigator.clipboard.readText()")).toMatch(/^copy-42-me/);

    // What the clipboard holds goes to the shell, not as ^V.
    await page.evaluate(`navigator.clipboard.writeText("echo pasted-$((6*9))")`);
    await byTestId(page, "terminal-screen").click();
    await page.keyboard.press("Control+Shift+KeyV");
    await page.keyboard.press("Enter");
    await eventually(() => screenText(page)).toContain("pasted-54");
  });
});
