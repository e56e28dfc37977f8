/**
 * The web chat picks up where it was, in a real Chromium against the real opencode: a page
 * reloaded mid-turn shows the turn end with the same text as one that was not reloaded, and a
 * network outage mid-turn shows the connection banner, then the conversation resumes from its
 * last seq with nothing lost or doubled.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useBrowser } from "../support/browser.js";
import { chatUrlOf, useChatHarness } from "../support/chat-harness.js";
import {
  assistantMessages,
  assistantText,
  byTestId,
  eventually,
  openNewSession,
  openSession,
  send,
  slowText,
  textsOf,
  waitForOutcomes,
} from "../support/chat-page.js";
import { type CuttingProxy, startCuttingProxy } from "../support/cutting-proxy.js";
import { within } from "../support/within.js";

/** The page's requests for a session snapshot, and when its scripts had all run. */
const SNAPSHOT_READS = `(() => {
  const contentLoaded = performance.getEntriesByType("navigation")[0].domContentLoadedEventStart;
  return performance
    .getEntriesByType("resource")
    .filter((entry) => new URL(entry.name).pathname.endsWith("/live"))
    .map((entry) => ({ start: entry.startTime, contentLoaded }));
})()`;

const chromium = useBrowser();
const harness = useChatHarness();

describe("the web chat resumes", () => {
  it("a reload mid-turn: the turn ends with the same text as without one, nothing doubled", async () => {
    const { page } = await chromium.open();
    const id = await openNewSession(page, harness.current, "reload");
    await send(page, "[[slow 25 40]]");
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    const unreloaded = await assistantText(page);
    expect(unreloaded).toBe(slowText(25));

    await send(page, "[[slow 25 120]]");
    await eventually(async () => {
      const text = await assistantText(page, 1);
      return text.includes("tok3") && !text.includes("tok25");
    }, "the second turn part-way").toBe(true);
    // The token was kept in sessionStorage: the reloaded page needs no fragment.
    await page.reload();
    await byTestId(page, "session-list").waitFor({ state: "attached" });
    await openSession(page, id);
    expect(await waitForOutcomes(page, 2)).toEqual(["completed", "completed"]);
    // The reloaded page asked for the session's snapshot once, as its bundle started to run
    // (web/src/early-read.ts), not after the app had been evaluated and drawn.
    const reads =
      await page.evaluate<Array<{ start: number; contentLoaded: number }>>(SNAPSHOT_READS);
    expect(reads).toHaveLength(1);
    expect(reads[0]?.start).toBeLessThan(reads[0]?.contentLoaded ?? 0);
    expect(await assistantText(page, 1)).toBe(unreloaded);
    expect(await assistantMessages(page).count()).toBe(2);
    expect(await textsOf(byTestId(page, "message-user"))).toEqual([
      "[[slow 25 40]]",
      "[[slow 25 120]]",
    ]);
  });

  describe("through a network that drops", () => {
    let proxy: CuttingProxy;
    beforeAll(async () => {
      // The sidecar checks Host and Origin: the proxy listens on [::1] with the sidecar's own
      // port, a loopback name of the sidecar's.
      const port = Number(new URL(harness.current.sidecar.url).port);
      proxy = await startCuttingProxy(harness.current.sidecar.url, { host: "::1", port });
    });
    afterAll(async () => {
      await proxy?.close();
    });

    it("shows the banner while reconnecting, then resumes: nothing lost, nothing doubled", async () => {
      const { page, expectErrors } = await chromium.open();
      // What Chromium logs about the refused connections while the network is down.
      expectErrors(/ERR_CONNECTION_REFUSED|ERR_CONNECTION_RESET|WebSocket connection/);
      const id = await openNewSession(page, harness.current, "outage", chatUrlOf(proxy.url));
      expect(await byTestId(page, "connection-banner").count()).toBe(0);
      // The sidecar's own view of the turn, not through the proxy.
      const watch = harness.current.client.subscribe(id);
      let deltas = 0;
      const counting = (async () => {
        for await (const event of watch) if (event.type === "text.delta") deltas += 1;
      })();
      try {
        await send(page, "[[slow 100 60]]");
        await eventually(async () => (await assistantText(page)).includes("tok3")).toBe(true);
        await proxy.refuse();
        await eventually(() => byTestId(page, "connection-banner").count()).toBe(1);
        // The turn goes on meanwhile: let a good part of it pass unseen by the page.
        const before = deltas;
        await eventually(() => deltas - before, "deltas while the page is cut off").toBeGreaterThan(
          15,
        );
        await proxy.resume();
        await eventually(() => byTestId(page, "connection-banner").count()).toBe(0);
        expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
        expect(await assistantText(page)).toBe(slowText(100));
        expect(await assistantMessages(page).count()).toBe(1);
        expect(await byTestId(page, "message-user").count()).toBe(1);
      } finally {
        watch.close();
        await within(counting, "the watching subscription's end", 10_000).catch(() => {});
      }
    });
  });
});
