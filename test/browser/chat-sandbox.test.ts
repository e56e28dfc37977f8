/**
 * The web chat says which sandbox the open session's agent runs in, in a real Chromium against
 * the real OpenCode run in bubblewrap (`workspace-write`): the badge in the top bar, and a
 * command that writes outside the directory failing in the tool card.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { screenshot, useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import {
  byTestId,
  eventually,
  openNewSession,
  send,
  waitForOutcomes,
} from "../support/chat-page.js";

const chromium = useBrowser();
const harness = useChatHarness({ sandbox: "workspace-write" });

it("shows the session's sandbox, and a write outside the directory failing", async () => {
  const { page } = await chromium.open({ viewport: { width: 1100, height: 700 } });
  await openNewSession(page, harness.current, "sandboxed");
  const badge = byTestId(page, "sandbox-badge");
  await eventually(() => badge.textContent()).toBe("Sandbox: workspace");
  expect(await badge.getAttribute("title")).toMatch(/only in the session's directory/);

  // Outside /tmp (private in the sandbox), where a write would otherwise land for real.
  const outside = join(homedir(), `.ocb-sandbox-chat-${process.pid}.txt`);
  await send(
    page,
    `[[tool bash ${JSON.stringify({ command: `echo hi > ${outside}` })}]] [[then done]]`,
  );
  await waitForOutcomes(page, 1);
  await eventually(
    async () => (await byTestId(page, "tool-output").first().textContent()) ?? "",
  ).toMatch(/Read-only file system/);
  expect(existsSync(outside)).toBe(false);
  await screenshot(page, "sandbox-badge");
});
