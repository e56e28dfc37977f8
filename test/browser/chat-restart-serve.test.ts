/**
 * `npm start` stopped and started again, as a new user does it: the real script
 * (`scripts/start.ts` → `ocb serve --demo`, a real opencode behind the scripted model) on one
 * store, Ctrl-C, started again, with a real Chromium. The demo's sessions go on (their
 * directory is kept beside the store, not a temp dir removed at stop), and a tab left open
 * from before is told to open the new link instead of reconnecting for ever: a new start
 * listens on another port, or on the same one with another token.
 */
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { screenshot, useBrowser } from "../support/browser.js";
import {
  assistantText,
  byTestId,
  eventually,
  openChat,
  openSession,
  outcomes,
  send,
  textsOf,
  waitForOutcomes,
} from "../support/chat-page.js";
import { untilOcb } from "../support/ocb-cli.js";
import { CHAT_LINE, ctrlC, type StartedScript, useStartScript } from "../support/start-script.js";

const chromium = useBrowser();

/** Safety nets, not what is tested. */
const START_BOUND_MS = 90_000;
const TEST_BOUND_MS = 300_000;
const FIRST_TURN_BOUND_MS = 120_000;

const scripts = useStartScript();

interface Started extends StartedScript {
  /** The chat's link as printed (token in the fragment). */
  link: string;
  origin: string;
}

/** `npm start -- --store <store> …` (a token of its own each start); waits for its link. */
async function npmStart(store: string, ...args: string[]): Promise<Started> {
  const { cli, watch } = scripts.start(["--store", store, ...args]);
  await untilOcb("the chat link", cli, () => CHAT_LINE.test(cli.stdout), START_BOUND_MS);
  const [link = "", origin = ""] = CHAT_LINE.exec(cli.stdout) ?? [];
  return { cli, watch, link: link.slice("chat: ".length), origin };
}

/** A port free now (for a start that names its port). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

function tempRoot(): string {
  return scripts.tempDir("ocb-npm-restart-");
}

/** The open session's id, from the page's fragment. */
async function openSessionId(page: import("playwright-core").Page): Promise<string> {
  const hash = await page.evaluate<string>("location.hash");
  const id = new URLSearchParams(hash.slice(1)).get("session");
  if (id === null) throw new Error(`no session open (fragment ${hash})`);
  return id;
}

describe("npm start, stopped and started again", () => {
  it(
    "the demo's sessions go on, and a tab from before is told to open the new link",
    async () => {
      const root = tempRoot();
      const store = join(root, "store.db");
      const first = await npmStart(store);

      const old = await chromium.open({ viewport: { width: 1280, height: 800 } });
      // The tab from before sees its sidecar stop (503 while stopping), then go away.
      // A stopping sidecar refuses new connections and resets those a request raced onto.
      old.expectErrors(/ERR_CONNECTION_REFUSED/, /ERR_CONNECTION_RESET/, /status of 503/);
      await openChat(old.page, first.link);
      await byTestId(old.page, "new-session").click();
      // The landing page has a composer too: the new session is open once the address names it.
      await eventually(() => old.page.evaluate<string>("location.hash")).toMatch(/session=/);
      const id = await openSessionId(old.page);
      await send(old.page, "[[reply before the restart]]");
      expect(await waitForOutcomes(old.page, 1)).toEqual(["completed"]);

      await ctrlC(first);
      const second = await npmStart(store);
      expect(second.origin, "a new start listens on a new port").not.toBe(first.origin);

      // The old tab: told where to go, within a bound, not "reconnecting" for ever.
      const gone = byTestId(old.page, "sidecar-gone");
      await gone.waitFor();
      expect((await textsOf(gone)).join(" ")).toContain("open the new link it printed");
      expect(await byTestId(old.page, "connection-banner").count()).toBe(0);
      await screenshot(old.page, "web-restart-sidecar-gone-1280");
      await old.page.setViewportSize({ width: 390, height: 844 });
      await screenshot(old.page, "web-restart-sidecar-gone-390");

      // The new link: the session made before takes a turn.
      const fresh = await chromium.open({ viewport: { width: 1280, height: 800 } });
      await openChat(fresh.page, second.link);
      await openSession(fresh.page, id);
      await eventually(() => assistantText(fresh.page)).toBe("before the restart");
      await send(fresh.page, "[[reply after the restart]]");
      // The first turn after a start (the session taken up again) is slow on a loaded machine.
      await expect
        .poll(async () => (await outcomes(fresh.page)).length, { timeout: FIRST_TURN_BOUND_MS })
        .toBe(2);
      expect(await outcomes(fresh.page)).toEqual(["completed", "completed"]);
      expect(await assistantText(fresh.page)).toBe("after the restart");
      // It could, because the demo's default directory is kept beside the store.
      const directory = join(root, "demo-project");
      expect(first.cli.stdout).toContain(`directory ${directory})`);
      expect(second.cli.stdout).toContain(`directory ${directory})`);
      await fresh.context.close();
      await old.context.close();
      await ctrlC(second);
      expect(existsSync(directory)).toBe(true);
    },
    TEST_BOUND_MS,
  );

  it(
    "on the same port with a new token, a tab from before is told to open the new link",
    async () => {
      const root = tempRoot();
      const store = join(root, "store.db");
      const port = String(await freePort());
      const first = await npmStart(store, "--port", port);
      const old = await chromium.open();
      old.expectErrors(
        /ERR_CONNECTION_REFUSED/,
        /ERR_CONNECTION_RESET/,
        /status of 503/,
        /status of 401/,
      );
      await openChat(old.page, first.link);
      await byTestId(old.page, "new-session").click();
      // The landing page has a composer too: the new session is open once the address names it.
      await eventually(() => old.page.evaluate<string>("location.hash")).toMatch(/session=/);

      await ctrlC(first);
      const second = await npmStart(store, "--port", port);
      expect(second.origin).toBe(first.origin);
      expect(second.link).not.toBe(first.link);

      const form = byTestId(old.page, "token-form");
      await form.waitFor();
      expect((await textsOf(old.page.getByRole("alert"))).join(" ")).toContain(
        "Open the link ocb serve printed last (a new start makes a new token)",
      );
      await old.context.close();
      await ctrlC(second);
    },
    TEST_BOUND_MS,
  );
});
