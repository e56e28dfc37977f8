/**
 * The web chat through a relay, in a real Chromium: a real relay serving the built chat
 * (`startRelay({ webRoot })`, what `ocb relay --web` does), a real sidecar reachable only
 * through it for the page (`remote`, what `ocb serve --relay` does; the scripted model behind
 * the real opencode). The page opens a pairing link based on the relay, pairs, and chats with
 * the sidecar through the end-to-end encrypted tunnel; the address bar never keeps the link's
 * secret; a reload goes on through the relay with the kept pairing (no token asked); a second
 * use of the link is refused with what to do; "Forget this sidecar" removes the pairing; a
 * browser revoked at the sidecar is told so, and can forget its pairing there.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Relay, startRelay } from "../../src/relay/relay-server.js";
import { screenshotsWideAndPhone, useBrowser } from "../support/browser.js";
import {
  assistantText,
  byTestId,
  eventually,
  openSession,
  send,
  textsOf,
} from "../support/chat-page.js";
import { type RealSidecar, startRealSidecar } from "../support/real-sidecar.js";
import { assertWebBuilt, WEB_INDEX } from "../support/web-build.js";
import { within } from "../support/within.js";

const chromium = useBrowser();
const WAIT_MS = 60_000;
const KEPT = "ocb.pairedSidecar";

let relay: Relay;
let real: RealSidecar;
let dir: string;
/** The chat's page at the relay: where pairing links lead. */
let pageUrl: string;

beforeAll(async () => {
  assertWebBuilt();
  dir = mkdtempSync(join(tmpdir(), "ocb-chat-relay-"));
  relay = await startRelay({
    webRoot: dirname(WEB_INDEX),
    // Every connection comes from 127.0.0.1 here.
    limits: { attemptsPerMinutePerIp: 10_000, concurrentPerIp: 1_000 },
  });
  pageUrl = `${relay.url.replace(/^ws/, "http")}/`;
  real = await startRealSidecar({
    label: "web chat through a relay",
    permissions: { edit: "ask", bash: "allow", webfetch: "allow" },
    remote: { relays: [relay.url], identityPath: join(dir, "relay-identity.json") },
  });
  await within(
    (async () => {
      while ((await real.client.remoteStatus()).relays[0]?.state !== "registered") {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })(),
    "the sidecar registered at the relay",
    WAIT_MS,
  );
});

afterAll(async () => {
  await real?.close();
  await relay?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe("the web chat served by a relay", () => {
  it("pairs from the link, chats through the relay, keeps no secret in the address bar, reloads into the same pairing, forgets it", async () => {
    const { link } = await real.client.createPairing({ linkBase: pageUrl });
    expect(link.startsWith(`${pageUrl}#ocb-pair=1&`)).toBe(true);
    const secret = new URL(link).hash.match(/secret=([^&]+)/)?.[1] ?? "";
    expect(secret.length).toBeGreaterThan(20);
    const { id } = await real.client.createSession({ title: "through the relay" });

    const { page } = await chromium.open();
    await page.goto(link);
    const screen = byTestId(page, "pairing-screen");
    await screen.waitFor();
    // Out of the address bar (and the history) before the user does anything.
    expect(page.url()).toBe(pageUrl);
    // Chromium's navigation history of this page's origin: the entry was replaced, not added.
    const entries = await page.evaluate<string[]>("navigation.entries().map((entry) => entry.url)");
    expect(entries).toEqual([pageUrl]);
    const sidecarId = await byTestId(page, "pairing-sidecar").textContent();
    expect(link).toContain(`sidecar=${sidecarId}`);
    await screenshotsWideAndPhone(page, "chat-relay-pairing");
    expect(await byTestId(page, "device-name").inputValue()).toMatch(/^Chrome on Linux$/);
    await byTestId(page, "device-name").fill("browser test");
    await byTestId(page, "pair-device").click();

    await byTestId(page, "session-list").waitFor({ state: "attached" });
    expect(page.url()).not.toContain(secret);
    const kept = await page.evaluate<string | null>(`localStorage.getItem("${KEPT}")`);
    expect(kept).not.toBeNull();
    expect(kept).not.toContain(secret);
    const devices = (await real.client.remoteStatus()).devices.map((device) => device.name);
    expect(devices).toContain("browser test");

    await openSession(page, id);
    // Streamed: the first tokens show while the last are still to come (3 s away).
    await send(page, "[[slow 30 100]]");
    await eventually(async () => {
      const text = await assistantText(page);
      return text.includes("tok2") && !text.includes("tok30");
    }).toBe(true);
    await eventually(() => assistantText(page)).toContain("tok30");
    await send(page, "[[chunks 6]] [[reply streamed through the relay]]");
    await eventually(() => assistantText(page)).toContain("streamed through the relay");
    await screenshotsWideAndPhone(page, "chat-relay-chat");
    // No token: the sidecar's end of the tunnel sets it; the page never holds it.
    expect(await page.evaluate<string | null>(`sessionStorage.getItem("ocb-token")`)).toBeNull();

    // A reload: the kept pairing, no token asked, straight through the relay.
    await page.reload();
    await byTestId(page, "session-list").waitFor({ state: "attached" });
    expect(await byTestId(page, "token-form").count()).toBe(0);
    await openSession(page, id);
    await eventually(() => assistantText(page)).toContain("streamed through the relay");
    await send(page, "[[reply again after a reload]]");
    await eventually(() => assistantText(page)).toContain("again after a reload");
    expect(page.url()).not.toContain(secret);

    // Forget: the pairing leaves this browser; the page says how to pair again.
    await byTestId(page, "relay-open").click();
    await byTestId(page, "relay-dialog").waitFor();
    await screenshotsWideAndPhone(page, "chat-relay-forget");
    await byTestId(byTestId(page, "relay-dialog"), "forget-sidecar").click();
    await byTestId(page, "pairing-screen").waitFor();
    expect(await textsOf(byTestId(page, "pairing-screen"))).toEqual([
      expect.stringContaining("not paired"),
    ]);
    expect(await page.evaluate<string | null>(`localStorage.getItem("${KEPT}")`)).toBeNull();
    await page.reload();
    await byTestId(page, "token-form").waitFor();
  });

  it("a link opened again after it paired: refused, with what to do (ask for a new link)", async () => {
    const { link } = await real.client.createPairing({ linkBase: pageUrl });
    const first = await chromium.open();
    await first.page.goto(link);
    await byTestId(first.page, "pair-device").click();
    await byTestId(first.page, "session-list").waitFor({ state: "attached" });

    const second = await chromium.open();
    await second.page.goto(link);
    await byTestId(second.page, "pair-device").click();
    const problem = byTestId(second.page, "pairing-problem");
    await problem.waitFor();
    expect(await problem.textContent()).toMatch(/used already.*Ask for a new link with ocb pair/);
    expect(await byTestId(second.page, "pair-device").isDisabled()).toBe(true);
    expect(second.page.url()).toBe(pageUrl);
    expect(await second.page.evaluate<string | null>(`localStorage.getItem("${KEPT}")`)).toBeNull();
    await screenshotsWideAndPhone(second.page, "chat-relay-used-link");
  });

  it("a browser revoked at the sidecar is told so (not a stopped sidecar), and forgets its pairing", async () => {
    const { link } = await real.client.createPairing({ linkBase: pageUrl });
    const { page } = await chromium.open();
    await page.goto(link);
    await byTestId(page, "device-name").fill("to be revoked");
    await byTestId(page, "pair-device").click();
    await byTestId(page, "session-list").waitFor({ state: "attached" });
    const device = (await real.client.remoteStatus()).devices.find(
      (each) => each.name === "to be revoked",
    );
    expect(device).toBeDefined();
    await real.client.revokeDevice(device?.id ?? "");

    // The session list's polls reach nothing for a while (about 15 s), then the page says why.
    const gone = byTestId(page, "relay-gone");
    await gone.waitFor({ timeout: WAIT_MS });
    expect(await gone.textContent()).toContain("The sidecar refused this browser");
    await screenshotsWideAndPhone(page, "chat-relay-revoked");
    await byTestId(gone, "forget-sidecar").click();
    await byTestId(page, "pairing-screen").waitFor();
    expect(await page.evaluate<string | null>(`localStorage.getItem("${KEPT}")`)).toBeNull();
  });
});
