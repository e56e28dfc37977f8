/**
 * Sessions outlive the sidecar: after a restart on the same store (a new sidecar, bridge and
 * opencode server), a session made before is listed in the web chat and opens with its
 * conversation, once. (Its upstream session went with the old managed server's isolated data
 * dir, so it takes no new turn here; turns left running are adopted instead, see
 * test/e2e/sidecar-adopt.test.ts.)
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useBrowser } from "../support/browser.js";
import { type ChatHarness, startChatHarness } from "../support/chat-harness.js";
import {
  assistantText,
  byTestId,
  eventually,
  openChat,
  openSession,
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
        expect((await textsOf(sessionItem(page, id))).join(" ")).toContain("kept across a restart");
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
});
