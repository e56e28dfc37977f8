/**
 * The chat on another device and by the keyboard, in a real Chromium against the real opencode
 * and the scripted model: the desktop's "Open on your phone" QR code decodes (jsqr, on the
 * canvas's pixels) to an address that, in a second browser context at a phone's size, opens
 * the same session with its conversation, nothing scrolling sideways and every control a
 * thumb's size; `?` lists the shortcuts, which work and stay out of text fields; the app is
 * installable (its manifest, its PNG icons the sizes they say, the apple-touch-icon for iOS),
 * and its service worker keeps the shell, never the API.
 */
import jsQRModule from "jsqr";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { screenshot, useBrowser } from "../support/browser.js";
import { CHAT_TOKEN, useChatHarness } from "../support/chat-harness.js";
import {
  assistantText,
  byTestId,
  eventually,
  openChat,
  openNewSession,
  send,
  waitForOutcomes,
} from "../support/chat-page.js";

// jsqr is CommonJS with a default export: under Node's ESM interop the function is `.default`.
type JsQr = typeof import("jsqr").default;
const jsQR: JsQr =
  (jsQRModule as unknown as { default?: JsQr }).default ?? (jsQRModule as unknown as JsQr);

const chromium = useBrowser();
const harness = useChatHarness();

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/** The text of the QR code drawn in the pairing dialog, read from its pixels. */
async function readQrCode(page: Page): Promise<string | undefined> {
  const image = await byTestId(page, "pairing-qr").evaluate((canvas) => {
    const drawn = canvas as unknown as {
      width: number;
      height: number;
      getContext(kind: "2d"): {
        getImageData(
          x: number,
          y: number,
          w: number,
          h: number,
        ): {
          data: Uint8ClampedArray;
          width: number;
          height: number;
        };
      } | null;
    };
    const context = drawn.getContext("2d");
    if (context === null) return undefined;
    const { data, width, height } = context.getImageData(0, 0, drawn.width, drawn.height);
    return { data: Array.from(data), width, height };
  });
  if (image === undefined) return undefined;
  return jsQR(Uint8ClampedArray.from(image.data), image.width, image.height)?.data;
}

/** The visible controls smaller than a thumb (44×44 CSS px), described. */
function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const small = [];
    for (const el of document.querySelectorAll("button, a[href], input, select, textarea, summary, [role=button]")) {
      const box = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      if (box.width === 0 || box.height === 0 || style.visibility === "hidden") continue;
      if (el.closest("[inert]") !== null) continue;
      // A checkbox, radio or file input inside its label: the label is the target.
      const labelled = ["checkbox", "radio", "file"].includes(el.type) && el.closest("label");
      const target = labelled ? el.closest("label").getBoundingClientRect() : box;
      if (target.width < 44 || target.height < 44) {
        small.push((el.getAttribute("data-testid") || el.className || el.tagName) + " " + Math.round(target.width) + "x" + Math.round(target.height));
      }
    }
    return small;
  })()`);
}

const scrollWidth = (page: Page) => page.evaluate<number>("document.documentElement.scrollWidth");
const focusedTestId = (page: Page) =>
  page.evaluate<string | null>("document.activeElement?.getAttribute('data-testid') ?? null");

/** A PNG's "WIDTHxHEIGHT" from its header (the IHDR chunk right after the signature). */
function pngSize(png: Buffer): string {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(png.subarray(12, 16).toString("latin1")).toBe("IHDR");
  return `${png.readUInt32BE(16)}x${png.readUInt32BE(20)}`;
}
describe("the chat on a phone, by the keyboard, installed", () => {
  it("the pairing QR code opens the same session on a phone", async () => {
    const desktop = (await chromium.open({ viewport: DESKTOP })).page;
    const sessionId = await openNewSession(desktop, harness.current, "paired");
    await send(desktop, '[[tool bash {"command":"echo paired"}]] [[then seen on the phone]]');
    expect(await waitForOutcomes(desktop, 1)).toEqual(["completed"]);

    const opener = byTestId(desktop, "pairing-open");
    await opener.click();
    const dialog = byTestId(desktop, "pairing-dialog");
    await dialog.waitFor();
    // The sidecar listens on 127.0.0.1: the dialog says a phone cannot reach it, and why.
    expect(await byTestId(dialog, "pairing-loopback").textContent()).toContain("127.0.0.1");
    expect(await dialog.textContent()).toContain("The code is a key");
    // Hidden until asked for.
    expect(await byTestId(desktop, "pairing-qr").count()).toBe(0);
    await byTestId(dialog, "pairing-show").click();
    await byTestId(desktop, "pairing-qr").waitFor();
    const url = await readQrCode(desktop);
    expect(url).toBeDefined();
    const decoded = new URL(url ?? "");
    expect(decoded.origin).toBe(new URL(harness.current.chatUrl).origin);
    expect(decoded.search).toBe("");
    const fragment = new URLSearchParams(decoded.hash.slice(1));
    expect(fragment.get("token")).toBe(CHAT_TOKEN);
    expect(fragment.get("session")).toBe(sessionId);
    await screenshot(desktop, "pairing-dialog");
    // Escape closes it, and the keyboard is back on the button that opened it.
    await desktop.keyboard.press("Escape");
    await eventually(() => byTestId(desktop, "pairing-dialog").count()).toBe(0);
    await eventually(() => focusedTestId(desktop)).toBe("pairing-open");

    const phone = (await chromium.open({ viewport: PHONE, isMobile: true, hasTouch: true })).page;
    await phone.goto(url ?? "");
    await byTestId(phone, "conversation").waitFor();
    await eventually(() => assistantText(phone), "the conversation on the phone").toContain(
      "seen on the phone",
    );
    await byTestId(phone, "composer-input").waitFor();
    // The token left the address bar, as with the link `ocb serve` prints.
    expect(phone.url()).not.toContain(CHAT_TOKEN);
    expect(await scrollWidth(phone)).toBeLessThanOrEqual(PHONE.width);
    expect(await smallTargets(phone), "controls smaller than 44×44 on a phone").toEqual([]);
    await byTestId(phone, "sidebar-toggle").click();
    await eventually(() => byTestId(phone, "session-item").first().isVisible()).toBe(true);
    expect(await smallTargets(phone), "the open side list on a phone").toEqual([]);
    await byTestId(phone, "sidebar-toggle").click();
    await screenshot(phone, "paired-phone");
  });

  it("? lists the shortcuts in a dialog that keeps the keyboard; the shortcuts work", async () => {
    const { page } = await chromium.open({ viewport: DESKTOP });
    await openChat(page, harness.current.chatUrl);
    const input = byTestId(page, "composer-input");
    await input.waitFor();
    // In a text field `?` is text.
    await input.fill("");
    await input.press("?");
    expect(await input.inputValue()).toBe("?");
    expect(await byTestId(page, "shortcut-list").count()).toBe(0);
    await input.fill("");

    await byTestId(page, "theme-toggle").focus();
    await page.keyboard.press("?");
    const list = byTestId(page, "shortcut-list");
    await list.waitFor();
    expect((await byTestId(list, "shortcut").allTextContents()).join(" ")).toContain("?");
    // Tab wraps inside the dialog.
    for (let presses = 0; presses < 4; presses++) {
      await page.keyboard.press("Tab");
      expect(
        await page.evaluate<boolean>(
          "document.activeElement?.closest('[data-testid=\"shortcut-list\"]') !== null",
        ),
      ).toBe(true);
    }
    await page.keyboard.press("Escape");
    await eventually(() => byTestId(page, "shortcut-list").count()).toBe(0);
    await eventually(() => focusedTestId(page)).toBe("theme-toggle");

    // c: the composer.
    await page.keyboard.press("c");
    expect(await focusedTestId(page)).toBe("composer-input");
    expect(await input.inputValue()).toBe("");
    // n: a new session, opened.
    const before = (await harness.current.client.listSessions()).length;
    await byTestId(page, "theme-toggle").focus();
    await page.keyboard.press("n");
    await eventually(async () => (await harness.current.client.listSessions()).length).toBe(
      before + 1,
    );
    await eventually(() => page.url()).toContain("session=");

    // s on a phone: the session list opens and closes.
    await page.setViewportSize(PHONE);
    await byTestId(page, "theme-toggle").focus();
    await page.keyboard.press("s");
    await eventually(() => byTestId(page, "sidebar-toggle").getAttribute("aria-expanded")).toBe(
      "true",
    );
    await byTestId(page, "sidebar-toggle").focus();
    await page.keyboard.press("s");
    await eventually(() => byTestId(page, "sidebar-toggle").getAttribute("aria-expanded")).toBe(
      "false",
    );
  });

  it("is installable (its manifest), and its service worker keeps the shell, never the API", async () => {
    const { page } = await chromium.open({ viewport: DESKTOP });
    const origin = new URL(harness.current.chatUrl).origin;
    const manifestResponse = await page.request.get(`${origin}/manifest.webmanifest`);
    expect(manifestResponse.status()).toBe(200);
    expect(manifestResponse.headers()["content-type"]).toMatch(/^application\/manifest\+json/);
    const manifest = JSON.parse(await manifestResponse.text()) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      name: expect.any(String),
      short_name: expect.any(String),
      start_url: expect.any(String),
      display: "standalone",
      theme_color: expect.stringMatching(/^#[0-9a-f]{6}$/i),
    });
    const icons = manifest.icons as { src: string; type: string; sizes: string; purpose: string }[];
    expect(icons.length).toBeGreaterThan(0);
    for (const icon of icons) {
      const served = await page.request.get(new URL(icon.src, `${origin}/`).href);
      expect(served.status(), icon.src).toBe(200);
      expect(served.headers()["content-type"]).toContain(icon.type);
      // A PNG is the size it says it is (its header's), for the launchers that take no SVG.
      if (icon.type === "image/png")
        expect(pngSize(await served.body()), icon.src).toBe(icon.sizes);
    }
    // Android's launchers: 192 and 512 PNGs, each for any shape and for a mask.
    const pngs = icons.filter((icon) => icon.type === "image/png");
    for (const size of ["192x192", "512x512"]) {
      for (const purpose of ["any", "maskable"]) {
        expect(pngs.some((icon) => icon.sizes === size && icon.purpose === purpose)).toBe(true);
      }
    }

    const id = (await harness.current.client.createSession({ title: "installed" })).id;
    await openChat(page, harness.current.chatUrl);
    expect(await page.locator('link[rel="manifest"]').count()).toBe(1);
    // iOS reads no manifest icon: its home screen takes the apple-touch-icon, a 180×180 PNG.
    const touchIcon = await page.locator('link[rel="apple-touch-icon"]').getAttribute("href");
    const touch = await page.request.get(new URL(touchIcon ?? "", `${origin}/`).href);
    expect(touch.status()).toBe(200);
    expect(touch.headers()["content-type"]).toBe("image/png");
    expect(pngSize(await touch.body())).toBe("180x180");
    expect(
      await page.evaluate<string>(
        "navigator.serviceWorker.ready.then((registration) => registration.active?.scriptURL ?? '')",
      ),
    ).toBe(`${origin}/sw.js`);
    // Controlled from now on: a reload's page, assets and API calls all pass the worker.
    await page.reload();
    await byTestId(page, "session-list").waitFor({ state: "attached" });
    expect(await page.evaluate<boolean>("navigator.serviceWorker.controller !== null")).toBe(true);
    await byTestId(page, `session-item`).first().waitFor();
    await page.locator(`[data-testid="session-item"][data-session-id="${id}"]`).click();
    await byTestId(page, "composer-input").waitFor();
    await send(page, "[[reply kept out of the cache]]");
    await waitForOutcomes(page, 1);
    const kept = await page.evaluate<string[]>(
      "caches.keys().then(async (names) => (await Promise.all(names.map(async (name) => (await (await caches.open(name)).keys()).map((request) => request.url)))).flat())",
    );
    expect(kept).toContain(`${origin}/`);
    expect(kept.some((url) => url.includes("/assets/"))).toBe(true);
    expect(kept.filter((url) => url.includes("/v1/") || url.includes(CHAT_TOKEN))).toEqual([]);
    // Each kept response is the shell: the page and its scripts and styles, nothing else.
    expect(kept.every((url) => url === `${origin}/` || url.startsWith(`${origin}/assets/`))).toBe(
      true,
    );
  });
});
