/**
 * The web chat's first minute and its sessions, in a real Chromium against the real opencode:
 * with no session open the composer is ready on a landing page; the first message makes a
 * session titled from its first words (a title with HTML in it stays text) and it answers;
 * the side list groups sessions by project, searches, deletes after asking, starts a session
 * in another project; the user's own `opencode run` session is imported with its history; a
 * session whose OpenCode session is gone is continued rather than left read only.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareOpencodeEnv } from "../../src/server/prepared-env.js";
import { resolveOpencodeBinary } from "../../src/server/resolve-binary.js";
import { demoModelRef, demoProviderConfig } from "../../src/testing/demo-provider.js";
import { startScriptedModel } from "../../src/testing/scripted-model/index.js";
import { screenshot, useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import {
  assistantText,
  byTestId,
  eventually,
  openChat,
  send,
  sessionItem,
  textsOf,
} from "../support/chat-page.js";
import { runCommand } from "../support/run-command.js";

const scratch = mkdtempSync(join(tmpdir(), "ocb-web-first-minute-"));
/** OpenCode's data, where the user ran `opencode run` before starting the chat. */
const dataDir = join(scratch, "opencode-data");
/** The sidecar's default project, and a second allowed one. */
const project = join(scratch, "project");
const other = join(scratch, "other-project");
mkdirSync(project);
mkdirSync(other);
/** The OpenCode session `opencode run` made in the project. */
let ranByHand = "";

// Registered before the harness's own beforeAll, so the session is there when it starts.
beforeAll(async () => {
  const model = await startScriptedModel();
  try {
    const { env } = await prepareOpencodeEnv({
      dataDir,
      password: undefined,
      config: { ...demoProviderConfig(model.url) },
    });
    const args = ["run", "--format", "json", "-m", demoModelRef, "--", "question BRAVO by hand"];
    const result = await runCommand(resolveOpencodeBinary(), args, {
      cwd: project,
      env,
      boundMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(0);
    ranByHand = (JSON.parse(result.stdout.split("\n")[0] ?? "") as { sessionID: string }).sessionID;
  } finally {
    await model.close();
  }
}, 90_000);

const chromium = useBrowser();
const harness = useChatHarness({ directory: project, dataDir, allowDirectories: [other] });
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** HTML a title must show as text: run, it would change the page's title. */
const PLANTED = `<img src=x onerror="document.title='pwned'">`;

/** The `data-testid` of the focused element. */
function focusedTestId(page: Page): Promise<string | null> {
  return page.evaluate<string | null>(
    `document.activeElement && document.activeElement.getAttribute("data-testid")`,
  );
}

/** The open session's id, from the address. */
async function openId(page: Page): Promise<string | null> {
  const hash = await page.evaluate<string>("location.hash");
  return new URLSearchParams(hash.slice(1)).get("session");
}

/** The visible controls smaller than a thumb (44 px) in either direction, by their label. */
function smallTargets(page: Page, scope: string): Promise<string[]> {
  const controls = ["button", "select", "input", "textarea"].map((tag) => `${scope} ${tag}`);
  return page.evaluate<string[]>(`(() => {
    const small = [];
    for (const element of document.querySelectorAll(${JSON.stringify(controls.join(", "))})) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      if (box.width < 44 || box.height < 44) {
        small.push((element.getAttribute("aria-label") || element.textContent) + " " + box.width + "x" + box.height);
      }
    }
    return small;
  })()`);
}

describe("the first minute", () => {
  it("the landing page has the composer ready; the first message makes a session titled from it", async () => {
    const { page } = await chromium.open({ viewport: { width: 1280, height: 800 } });
    await openChat(page, harness.current.chatUrl);
    await byTestId(page, "landing").waitFor();
    await eventually(() => focusedTestId(page), "the composer has the focus").toBe(
      "composer-input",
    );
    // The demo model's examples: a click puts one in the composer, ready to send.
    await byTestId(page, "demo-note").waitFor();
    expect(await textsOf(byTestId(page, "example-prompt"))).toContain("Run a shell command");
    await byTestId(page, "example-prompt").filter({ hasText: "Say hello" }).click();
    expect(await byTestId(page, "composer-input").inputValue()).toMatch(/^\[\[reply Hello!/);
    expect(await focusedTestId(page)).toBe("composer-input");
    await screenshot(page, "first-minute-landing");

    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(
      390,
    );
    // The landing page's own controls (the composer's are the composer's business).
    expect(await smallTargets(page, ".landing-welcome")).toEqual([]);
    expect(await smallTargets(page, ".landing-where")).toEqual([]);
    await screenshot(page, "first-minute-landing-phone");
    await page.setViewportSize({ width: 1280, height: 800 });

    // Creating the session takes a moment: a status row says so while it does.
    await page.evaluate(`new MutationObserver(() => {
      if (document.querySelector('[data-testid="landing-progress"]') !== null) {
        document.body.dataset.sawProgress = "true";
      }
    }).observe(document.body, { childList: true, subtree: true })`);
    const first = `${PLANTED} [[reply first answer]]`;
    await send(page, first);
    await eventually(() => openId(page), "the new session opened").not.toBeNull();
    const id = (await openId(page)) ?? "";
    await eventually(() => assistantText(page)).toBe("first answer");
    expect(await page.evaluate<string>("document.body.dataset.sawProgress")).toBe("true");

    // Titled from its first words, for every client; shown as text, never run.
    const title = `${PLANTED} [[reply first…`;
    expect((await harness.current.client.getSession(id)).title).toBe(title);
    await eventually(async () => textsOf(byTestId(page, "session-title"))).toEqual([title]);
    await eventually(async () =>
      textsOf(sessionItem(page, id).getByTestId("session-name")),
    ).toEqual([title]);
    expect(await page.locator(".sessions img, .topbar img").count()).toBe(0);
    expect(await page.title()).not.toBe("pwned");
    expect(await page.title()).toContain("[[reply first…");

    // Rename still works on it.
    await byTestId(page, "rename-session").click();
    await byTestId(page, "rename-input").fill("renamed first session");
    await byTestId(page, "rename-input").press("Enter");
    await eventually(async () =>
      textsOf(sessionItem(page, id).getByTestId("session-name")),
    ).toEqual(["renamed first session"]);

    // "+ New session" makes one at once, untitled: its first message titles it.
    await byTestId(page, "new-session").click();
    await eventually(() => openId(page)).not.toBe(id);
    const second = (await openId(page)) ?? "";
    await eventually(() => focusedTestId(page)).toBe("composer-input");
    await send(page, "[[reply second answer]] from the button");
    await eventually(() => assistantText(page)).toBe("second answer");
    await eventually(async () =>
      textsOf(sessionItem(page, second).getByTestId("session-name")),
    ).toEqual(["[[reply second answer]] from the button"]);
    expect((await harness.current.client.getSession(second)).title).toBe(
      "[[reply second answer]] from the button",
    );
  });
});

describe("sessions and projects in the side list", () => {
  it("groups by project, starts one in another project, searches, and deletes after asking", async () => {
    const { client } = harness.current;
    const kept = await client.createSession({ title: "kept alpha" });
    const doomed = await client.createSession({ title: "doomed beta" });
    const { page } = await chromium.open({ viewport: { width: 1280, height: 800 } });
    await openChat(page, harness.current.chatUrl);
    const groups = byTestId(page, "project-group");
    await eventually(async () =>
      groups.evaluateAll((all) => all.map((group) => group.getAttribute("data-directory"))),
    ).toEqual([project, other]);
    const inProject = groups.filter({ has: page.locator(`[data-session-id="${kept.id}"]`) });
    await eventually(() => inProject.count()).toBe(1);

    // The landing page's project switcher: the first message's session is made there.
    await byTestId(page, "project-picker").selectOption(other);
    await send(page, "[[reply in the other project]]");
    await eventually(() => assistantText(page)).toBe("in the other project");
    const elsewhere = (await openId(page)) ?? "";
    expect((await client.getSession(elsewhere)).directory).toBe(other);
    await eventually(() => groups.nth(1).locator(`[data-session-id="${elsewhere}"]`).count()).toBe(
      1,
    );
    // A project's "+": a session there at once.
    await groups.nth(1).getByTestId("project-new-session").click();
    await eventually(() => openId(page)).not.toBe(elsewhere);
    const plussed = (await openId(page)) ?? "";
    expect((await client.getSession(plussed)).directory).toBe(other);
    await eventually(() => groups.nth(1).locator(`[data-session-id="${plussed}"]`).count()).toBe(1);

    // Search: by title, over the sessions shown.
    await byTestId(page, "session-search").fill("alpha");
    await eventually(async () => textsOf(byTestId(page, "session-name"))).toEqual(["kept alpha"]);
    await byTestId(page, "session-search").fill("");
    await eventually(() => sessionItem(page, doomed.id).count()).toBe(1);

    // Delete asks first; Cancel keeps it, Delete removes it (the sidecar kills it).
    const item = sessionItem(page, doomed.id);
    await item.getByTestId("delete-session").click();
    await item.getByTestId("delete-confirm").waitFor();
    expect(await focusedTestId(page)).toBe("delete-confirm-no");
    await screenshot(page, "first-minute-delete-confirm");
    await item.getByTestId("delete-confirm-no").click();
    expect(await item.getByTestId("delete-confirm").count()).toBe(0);
    expect((await client.getSession(doomed.id)).state).not.toBe("killed");
    await item.getByTestId("delete-session").click();
    await item.getByTestId("delete-confirm-yes").click();
    await eventually(() => sessionItem(page, doomed.id).count()).toBe(0);
    expect((await client.listSessions()).find((s) => s.id === doomed.id)?.state).toBe("killed");
    expect(await sessionItem(page, kept.id).count()).toBe(1);

    await page.setViewportSize({ width: 390, height: 844 });
    await byTestId(page, "sidebar-toggle").click();
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(
      390,
    );
    expect(await smallTargets(page, ".sidebar")).toEqual([]);
    await screenshot(page, "first-minute-sessions-phone");
  });

  it("imports the user's own OpenCode session, which opens with its history", async () => {
    const { page } = await chromium.open({ viewport: { width: 1280, height: 800 } });
    await openChat(page, harness.current.chatUrl);
    await byTestId(page, "import-toggle").click();
    const listed = page.locator(`[data-testid="import-item"][data-upstream-id="${ranByHand}"]`);
    await listed.waitFor();
    await screenshot(page, "first-minute-import");
    await listed.getByTestId("import-session").click();
    await eventually(() => openId(page), "the imported session opened").toBe(ranByHand);
    await eventually(async () =>
      (await textsOf(byTestId(page, "message-user"))).join(" "),
    ).toContain("question BRAVO by hand");
    await eventually(() => sessionItem(page, ranByHand).count()).toBe(1);
    expect(await listed.count()).toBe(0);
    // It goes on.
    await send(page, "[[reply after the import]]");
    await eventually(() => assistantText(page)).toBe("after the import");
  });

  it("continues a session whose OpenCode session is gone, instead of leaving it read only", async () => {
    const { client, bridge } = harness.current;
    const { page, expectErrors } = await chromium.open({ viewport: { width: 1280, height: 800 } });
    // The refused send, as Chromium logs any failed request.
    expectErrors(/status of 409 \(Conflict\)/);
    await openChat(page, harness.current.chatUrl);
    // No directive (an echo): the continued session's first prompt carries this exchange, and
    // the scripted model takes one reply directive a prompt.
    await send(page, "said before the loss");
    await eventually(() => assistantText(page)).toBe("echo: said before the loss");
    const id = (await openId(page)) ?? "";
    await bridge.client.session.delete({ sessionID: id }, { directory: project });

    // Not `send`, which waits for the composer to stay empty: a refused send gives the text back
    // at once, so the empty box may never be seen.
    const input = byTestId(page, "composer-input");
    await input.fill("[[reply after the loss]]");
    await input.press("Enter");
    const offer = byTestId(page, "continue-offer");
    await offer.waitFor();
    // The message is given back, to send again once continued.
    await eventually(() => input.inputValue()).toBe("[[reply after the loss]]");
    await screenshot(page, "first-minute-continue");
    await byTestId(page, "continue-session").click();
    await eventually(() => offer.count()).toBe(0);
    await input.press("Enter");
    await eventually(() => assistantText(page)).toBe("after the loss");
    expect((await client.getSession(id)).state).toBe("open");
  });
});
