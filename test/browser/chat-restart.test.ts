/**
 * Sessions outlive the sidecar: after a restart on the same store (a new sidecar, bridge and
 * opencode server), a session made before is listed in the web chat and opens with its
 * conversation, once. (Its upstream session went with the old managed server's isolated data
 * dir, so it takes no new turn here; turns left running are adopted instead, see
 * test/e2e/sidecar-adopt.test.ts; `ocb serve` keeps that data dir: chat-restart-serve.test.ts.)
 * A session whose directory was removed meanwhile is marked, read only, and offers a new
 * session; a session with no turns keeps its place in the list.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { screenshot, useBrowser } from "../support/browser.js";
import { type ChatHarness, startChatHarness } from "../support/chat-harness.js";
import {
  assistantText,
  byTestId,
  eventually,
  openChat,
  openSession,
  send,
  sessionItem,
  textsOf,
  waitForOutcomes,
} from "../support/chat-page.js";
import { within } from "../support/within.js";

const chromium = useBrowser();

/** Runs one turn through the typed client and waits for its end (bounded). */
async function runTurn(harness: ChatHarness, sessionId: string, text: string): Promise<void> {
  const events = harness.client.subscribe(sessionId);
  try {
    const { turnId } = await harness.client.send(sessionId, { text, delivery: "queue" });
    await within(
      (async () => {
        for await (const event of events) {
          if (event.type === "turn.ended" && event.turnId === turnId) return;
        }
      })(),
      `the end of turn ${turnId}`,
      60_000,
    );
  } finally {
    events.close();
  }
}

/** A store file and a default directory kept across harnesses (removed after `use`). */
async function withKeptPlace(
  use: (kept: { storeFile: string; directory: string; root: string }) => Promise<void>,
): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "ocb-web-restart-"));
  const directory = join(root, "work");
  mkdirSync(directory);
  try {
    await use({ storeFile: join(root, "store.db"), directory, root });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * A session made in a checkout of its own, with one turn ("[[reply REPLY]]"); then the sidecar
 * stops, the checkout is removed, and a sidecar starts again on the same store: `use` gets it.
 */
async function withRemovedCheckout(
  session: { title?: string; reply: string },
  use: (
    after: ChatHarness,
    kept: { id: string; removed: string; directory: string },
  ) => Promise<void>,
): Promise<void> {
  await withKeptPlace(async ({ storeFile, directory }) => {
    // Under the default directory: the only place sessions may be made (no --allow-dir here).
    const removed = join(directory, "removed-checkout");
    mkdirSync(removed);
    const before = await startChatHarness({ storeFile, directory });
    let id: string;
    try {
      ({ id } = await before.client.createSession({
        ...(session.title === undefined ? {} : { title: session.title }),
        directory: removed,
      }));
      await runTurn(before, id, `[[reply ${session.reply}]]`);
    } finally {
      await before.close();
    }
    rmSync(removed, { recursive: true });
    const after = await startChatHarness({ storeFile, directory });
    try {
      await use(after, { id, removed, directory });
    } finally {
      await after.close();
    }
  });
}

/** Two opencode starts and a few turns on a loaded machine: a safety net, not a speed check. */
const TWO_STARTS_MS = 300_000;

describe("after a restart of the sidecar", () => {
  it("a kept session is listed and opens with its conversation", async () => {
    const root = mkdtempSync(join(tmpdir(), "ocb-web-restart-"));
    const directory = join(root, "work");
    mkdirSync(directory);
    const kept = { storeFile: join(root, "store.db"), directory };
    try {
      const before = await startChatHarness(kept);
      let id: string;
      try {
        ({ id } = await before.client.createSession({ title: "kept across a restart" }));
        await runTurn(before, id, "[[reply from before the restart]]");
      } finally {
        await before.close();
      }
      const after = await startChatHarness(kept);
      try {
        const { page, context } = await chromium.open();
        await openChat(page, after.chatUrl);
        // The side list loads its projects, then their pages: wait for the entry.
        await eventually(async () => (await textsOf(sessionItem(page, id))).join(" ")).toContain(
          "kept across a restart",
        );
        await openSession(page, id);
        await eventually(() => assistantText(page)).toBe("from before the restart");
        expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
        expect(await textsOf(byTestId(page, "message-user"))).toEqual([
          "[[reply from before the restart]]",
        ]);
        expect(await byTestId(page, "message-assistant").count()).toBe(1);
        // Closed before the sidecar goes, so the page does not log its lost connection.
        await context.close();
      } finally {
        await after.close();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it(
    "a session whose directory was removed is marked, read only, and offers a new session",
    async () => {
      await withRemovedCheckout(
        { title: "in a removed checkout", reply: "from the removed checkout" },
        async (after, { id, removed, directory }) => {
          const { page, context } = await chromium.open({ viewport: { width: 1280, height: 800 } });
          await openChat(page, after.chatUrl);
          const item = sessionItem(page, id);
          await eventually(() => item.getAttribute("data-directory-missing")).toBe("true");
          expect((await textsOf(item)).join(" ")).toContain("directory gone");
          await item.click();
          // Readable: its conversation is there.
          await eventually(() => assistantText(page)).toBe("from the removed checkout");
          // Not continuable: no box to type into, and why.
          const reason = byTestId(page, "composer-closed-reason");
          await reason.waitFor();
          expect((await textsOf(reason)).join(" ")).toContain(`${removed} no longer exists`);
          expect(await byTestId(page, "composer-input").count()).toBe(0);
          await screenshot(page, "web-restart-directory-gone-1280");
          await page.setViewportSize({ width: 390, height: 844 });
          await screenshot(page, "web-restart-directory-gone-390");
          await page.setViewportSize({ width: 1280, height: 800 });

          await byTestId(page, "continue-new-session").click();
          await eventually(() => page.evaluate<string>("location.hash")).not.toContain(id);
          const newId = new URLSearchParams(
            (await page.evaluate<string>("location.hash")).slice(1),
          ).get("session");
          expect(newId).toBeTruthy();
          expect((await after.client.getSession(newId ?? "")).directory).toBe(directory);
          await byTestId(page, "composer-input").waitFor();
          await send(page, "[[reply continued here]]");
          await eventually(() => assistantText(page)).toBe("continued here");
          await context.close();
        },
      );
    },
    TWO_STARTS_MS,
  );

  it(
    "a session whose directory was removed is not opened: no 'lost its server' banner",
    async () => {
      await withRemovedCheckout({ reply: "kept" }, async (after, { id }) => {
        const { page, context } = await chromium.open();
        await openChat(page, after.chatUrl);
        await sessionItem(page, id).click();
        await eventually(() => assistantText(page)).toBe("kept");
        await byTestId(page, "composer-closed").waitFor();
        // Its streams would only meet OpenCode's 500s ("reconnecting" for ever, shown as a lost
        // server although the server is fine): the sidecar does not open it, the page does
        // not subscribe, and a send is refused by what it says rather than tried.
        const listed = (await after.client.listSessions()).find((session) => session.id === id);
        expect(listed).toMatchObject({ open: false, directoryMissing: true });
        expect(await byTestId(page, "connection-banner").count()).toBe(0);
        await expect(after.client.getSession(id)).resolves.toMatchObject({
          open: false,
          directoryMissing: true,
        });
        await expect(after.client.send(id, { text: "more", delivery: "queue" })).rejects.toThrow(
          /no longer exists/,
        );
        expect(await byTestId(page, "connection-banner").count()).toBe(0);
        await context.close();
      });
    },
    TWO_STARTS_MS,
  );

  it(
    "a session with no turns keeps its place and its time",
    async () => {
      await withKeptPlace(async ({ storeFile, directory }) => {
        const before = await startChatHarness({ storeFile, directory });
        let empty: string;
        let used: string;
        try {
          ({ id: empty } = await before.client.createSession({ title: "never used" }));
          ({ id: used } = await before.client.createSession({ title: "used" }));
          await runTurn(before, used, "[[reply used once]]");
        } finally {
          await before.close(); // releases both: their records change now
        }
        // The empty one was made three hours ago (its record's only time of its own).
        const store = SqliteStore.open(storeFile);
        try {
          const record = await store.session(empty);
          if (record === undefined) throw new Error(`no record of ${empty}`);
          await store.saveSession({ ...record, createdAt: Date.now() - 3 * 3_600_000 });
        } finally {
          store.close();
        }
        const after = await startChatHarness({ storeFile, directory });
        try {
          const { page, context } = await chromium.open();
          await openChat(page, after.chatUrl);
          const items = byTestId(page, "session-item");
          await eventually(() => items.count()).toBe(2);
          expect(await items.evaluateAll((all) => all.map((li) => li.dataset.sessionId))).toEqual([
            used,
            empty,
          ]);
          expect(await textsOf(sessionItem(page, empty).locator(".session-when"))).toEqual([
            "3 h ago",
          ]);
          await context.close();
        } finally {
          await after.close();
        }
      });
    },
    TWO_STARTS_MS,
  );
});
