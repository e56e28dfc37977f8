/**
 * The agent at work, in a real Chromium against the real opencode (issue 29, item 10): a
 * running turn ends in a row that says what it does and for how long (a status; the ticking
 * time kept out of what a screen reader announces), counted from the turn's real start after a
 * reload too; a running `bash` card shows its command and that it runs, then its output.
 *
 * A command is held running by a file the test writes (no sleep to out-wait): it polls for it,
 * within its own bound.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContextOptions } from "playwright-core";
import { describe, expect, it } from "vitest";
import { screenshot, screenshotsWideAndPhone, useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import {
  byTestId,
  eventually,
  openNewSession,
  send,
  textsOf,
  waitForOutcomes,
} from "../support/chat-page.js";

const chromium = useBrowser();
const harness = useChatHarness();

const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };

/** A bash command that runs until `release` exists (at most 2 minutes), then says `released`. */
function heldCommand(release: string): string {
  return `for i in $(seq 1200); do test -f ${release} && break; sleep 0.1; done; echo released`;
}

/** A scripted turn that runs `command` in bash, then replies `then`. */
function bashTurn(command: string, then: string): string {
  return `[[tool bash ${JSON.stringify({ command })}]] [[then ${then}]]`;
}

describe("the agent at work", () => {
  it("a running turn says what it does and for how long; a running bash card shows its command", async () => {
    const { page } = await chromium.open(DESKTOP);
    await openNewSession(page, harness.current, "working row");
    const release = join(harness.current.directory, "release-working");
    await send(page, bashTurn(heldCommand(release), "all done"));

    const row = byTestId(page, "working-row");
    await eventually(() => textsOf(byTestId(row, "working-activity"))).toEqual(["Running bash…"]);
    expect(await row.getAttribute("role")).toBe("status");
    // The time ticks outside what the status announces.
    const elapsed = byTestId(row, "working-elapsed");
    expect(await elapsed.getAttribute("aria-hidden")).toBe("true");
    expect(await elapsed.textContent()).toMatch(/^\d+s$|^\d+m \d\ds$/);

    const card = byTestId(page, "part-tool");
    expect(await card.getAttribute("data-state")).toBe("running");
    expect(await textsOf(byTestId(card, "tool-command"))).toEqual([`$ ${heldCommand(release)}`]);
    expect(await textsOf(byTestId(card, "tool-running"))).toEqual(["Running…"]);
    await screenshotsWideAndPhone(page, "working-bash-running");

    writeFileSync(release, "");
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    expect(await row.count()).toBe(0);
    expect(await card.getAttribute("data-state")).toBe("succeeded");
    expect(await byTestId(card, "tool-running").count()).toBe(0);
    expect(await textsOf(byTestId(card, "tool-output"))).toEqual([
      expect.stringContaining("released"),
    ]);
    expect(await textsOf(byTestId(card, "tool-command"))).toEqual([`$ ${heldCommand(release)}`]);
    await screenshot(page, "working-bash-done");
  });

  it("after a reload mid-turn, the elapsed time counts from the turn's start, not the page's", async () => {
    const { page } = await chromium.open(DESKTOP);
    const id = await openNewSession(page, harness.current, "working reload");
    const release = join(harness.current.directory, "release-reload");
    await send(page, bashTurn(heldCommand(release), "after the reload"));
    await byTestId(page, "working-row").waitFor();
    const started = (await harness.current.client.transcript(id)).find(
      (event) => event.type === "turn.started",
    )?.at;
    if (started === undefined) throw new Error("no turn.started in the transcript");

    // The page's clock 75 s after the turn's start: a row counting from the page's load says 0s.
    await page.clock.setFixedTime(started + 75_000);
    await page.reload();
    const row = byTestId(page, "working-row");
    await eventually(() => textsOf(byTestId(row, "working-activity"))).toEqual(["Running bash…"]);
    expect(await byTestId(row, "working-elapsed").getAttribute("data-since")).toBe(String(started));
    await eventually(() => byTestId(row, "working-elapsed").textContent()).toBe("1m 15s");

    writeFileSync(release, "");
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    expect(await row.count()).toBe(0);
  });
});
