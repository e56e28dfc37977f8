import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
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
import { gitWorktree } from "../support/git-worktree.js";

/** A git worktree whose one commit has `notes.txt` (two lines) and `greet.ts` (one). */
const worktree = gitWorktree("ocb-chat-review-", {
  "notes.txt": "a\nb\n",
  "greet.ts": 'export const name = "old";\n',
});
afterAll(() => rmSync(worktree, { recursive: true, force: true }));
const chromium = useBrowser();
// Edits run without asking: this test is about what they changed, not about the asks.
const harness = useChatHarness({
  directory: worktree,
  permissions: { edit: "allow", bash: "allow", webfetch: "allow" },
});

/** Model output is untrusted: were this HTML, the page would run it (and CSP would complain). */
const PLANTED = `<img src=x onerror="window.__planted='img'"><script>window.__planted='script'</script>`;

/** `greet.ts` changed: its first line replaced (with planted HTML in a string), three added. */
const GREET_AFTER = `export const name = \`new ${PLANTED}\`;
export function greet(): string {
  return name;
}
`;

/** A file long enough for its diff to start folded in the panel. */
const LONG = Array.from({ length: 250 }, (_, index) => `line ${index + 1}\n`).join("");

function write(name: string, content: string): string {
  return `[[tool write ${JSON.stringify({ path: join(worktree, name), content })}]]`;
}

const onDisk = (name: string) =>
  existsSync(join(worktree, name)) ? readFileSync(join(worktree, name), "utf8") : undefined;

/** Whether the page has fetched the review panel's code (its own chunk). */
const REVIEW_CODE_FETCHED = `performance
  .getEntriesByType("resource")
  .some((entry) => new URL(entry.name).pathname.includes("/assets/review-panel-"))`;

/** The paths the review panel lists, in order. */
function panelPaths(page: Page): Promise<string[]> {
  return textsOf(byTestId(byTestId(page, "review-panel"), "changed-file-path"));
}

describe("reviewing, undoing and forking turns", () => {
  it("reviews a turn's changes, undoes and redoes it, and forks before a message", async () => {
    const { page } = await chromium.open({ viewport: { width: 1280, height: 800 } });
    const sessionId = await openNewSession(page, harness.current, "review");
    await send(page, "[[reply hello]]");
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    await send(
      page,
      `${write("page.html", `one\n${PLANTED}\n`)} ${write("notes.txt", "a\nB\nc\n")} [[reply written]]`,
    );
    expect(await waitForOutcomes(page, 2)).toEqual(["completed", "completed"]);
    expect(onDisk("notes.txt")).toBe("a\nB\nc\n");

    // The first message has no actions: it changed nothing, and nothing is before it.
    // Each input with its turn's actions under it.
    const users = byTestId(page, "user-turn");
    expect(await byTestId(users.nth(0), "turn-actions").count()).toBe(0);
    const changesLink = byTestId(users.nth(1), "turn-changes");
    await eventually(() => textsOf(changesLink)).toEqual(["Changes · 2 files"]);

    await changesLink.click();
    const panel = byTestId(page, "review-panel");
    await eventually(() => panelPaths(page)).toEqual(["notes.txt", "page.html"]);
    expect(await byTestId(panel, "review-scope-turn").getAttribute("aria-pressed")).toBe("true");
    const notes = panel.locator('[data-testid="changed-file"][data-path="notes.txt"]');
    expect(await textsOf(notes.locator(".diff-line.del"))).toEqual(["-b"]);
    expect(await textsOf(notes.locator(".diff-line.add"))).toEqual(["+B", "+c"]);
    const html = panel.locator('[data-testid="changed-file"][data-path="page.html"]');
    expect(await textsOf(html.locator(".diff-line.add"))).toEqual([`+one`, `+${PLANTED}`]);
    // The planted markup is text, highlighted as HTML: no element made from it, nothing ran.
    await eventually(() => html.locator(".diff-line.add .hljs-tag").count()).toBeGreaterThan(0);
    expect(await panel.locator("img, script").count()).toBe(0);
    expect(await page.evaluate("window.__planted")).toBeUndefined();
    const workingTree = byTestId(panel, "working-tree");
    await eventually(async () =>
      (await textsOf(byTestId(workingTree, "working-tree-path"))).sort(),
    ).toEqual(expect.arrayContaining(["notes.txt", "page.html"]));
    await screenshotsWideAndPhone(page, "chat-review-panel");
    // Side by side: the removed line beside the one that replaced it, still text only.
    await byTestId(panel, "review-split").click();
    const split = byTestId(notes, "diff-split");
    await split.waitFor();
    expect(await textsOf(split.locator("tbody tr").nth(2).locator("td"))).toEqual(["-b", "+B"]);
    expect(await panel.locator("img, script").count()).toBe(0);
    await screenshot(page, "chat-review-split");
    await byTestId(panel, "review-split").click();
    await eventually(() => split.count()).toBe(0);
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    // A full-screen sheet: what is under it is out of the tab order.
    expect(await byTestId(page, "composer-input").isVisible()).toBe(false);
    for (const control of ["review-close", "review-scope-turn", "review-scope-session"]) {
      const box = await byTestId(panel, control).boundingBox();
      expect(box?.height, control).toBeGreaterThanOrEqual(44);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.keyboard.press("Escape");
    await eventually(() => panel.count()).toBe(0);
    // The focus goes back to what opened the panel.
    await eventually(() => page.evaluate("document.activeElement?.dataset.testid")).toBe(
      "turn-changes",
    );

    // On a phone every turn action is a thumb's size.
    await page.setViewportSize({ width: 390, height: 844 });
    for (const action of ["turn-changes", "turn-undo", "turn-fork"]) {
      const box = await byTestId(users.nth(1), action).boundingBox();
      expect(box?.height, action).toBeGreaterThanOrEqual(44);
    }
    await users.nth(1).scrollIntoViewIfNeeded();
    await screenshot(page, "chat-review-turn-actions-phone");
    await page.setViewportSize({ width: 1280, height: 800 });

    // Undo names the files that go back, puts them back and sets the turn aside.
    await byTestId(users.nth(1), "turn-undo").click();
    const confirm = page.getByRole("group", { name: "Revert the session" });
    expect(await textsOf(byTestId(confirm, "undo-files").locator("li"))).toEqual([
      "notes.txt",
      "page.html",
    ]);
    // The keyboard is on the safe answer.
    await eventually(() => page.evaluate("document.activeElement?.textContent")).toBe("Cancel");
    await screenshot(page, "chat-review-undo-confirm");
    await confirm.getByRole("button", { name: "Undo", exact: true }).click();
    await eventually(() => textsOf(users.locator(".user-text"))).toEqual(["[[reply hello]]"]);
    await eventually(() => onDisk("notes.txt")).toBe("a\nb\n");
    expect(onDisk("page.html")).toBeUndefined();
    const redoBar = byTestId(page, "redo-bar");
    await eventually(() => redoBar.textContent()).toMatch(/^1 message undone, 2 files put back/);

    await redoBar.getByRole("button", { name: "Redo" }).click();
    await eventually(() => users.count()).toBe(2);
    await eventually(() => onDisk("notes.txt")).toBe("a\nB\nc\n");
    expect(onDisk("page.html")).toBe(`one\n${PLANTED}\n`);

    // The session's panel, open while a turn writes, follows it (files.changed at its end).
    await byTestId(page, "review-open").click();
    await eventually(async () => (await panelPaths(page)).sort()).toEqual([
      "notes.txt",
      "page.html",
    ]);
    await send(page, `${write("later.txt", LONG)} [[reply later]]`);
    expect(await waitForOutcomes(page, 3)).toEqual(["completed", "completed", "completed"]);
    await eventually(async () => (await panelPaths(page)).sort()).toEqual([
      "later.txt",
      "notes.txt",
      "page.html",
    ]);
    await byTestId(panel, "review-close").click();
    await eventually(() => panel.count()).toBe(0);

    // A later turn's changes are its own; the session's are every turn's.
    const laterLink = byTestId(users.nth(2), "turn-changes");
    await eventually(() => textsOf(laterLink)).toEqual(["Changes · 1 file"]);
    // By keyboard too.
    await laterLink.focus();
    await page.keyboard.press("Enter");
    await eventually(() => panelPaths(page)).toEqual(["later.txt"]);
    // A long diff starts folded, and unfolds on demand.
    const later = panel.locator('[data-testid="changed-file"][data-path="later.txt"]');
    const unfold = later.getByRole("button", { name: /^Show the diff of later\.txt/ });
    expect(await textsOf(unfold)).toEqual(["Show diff (250 lines)"]);
    await unfold.click();
    await eventually(() => later.locator(".diff-line.add").count()).toBe(250);
    await byTestId(panel, "review-scope-session").click();
    await eventually(async () => (await panelPaths(page)).sort()).toEqual([
      "later.txt",
      "notes.txt",
      "page.html",
    ]);
    // "View file" opens a changed file in the files panel (in place of the review panel).
    await panel.getByRole("button", { name: "View file notes.txt" }).click();
    const files = byTestId(page, "files-panel");
    await eventually(() => files.locator(".file-lines").textContent()).toBe("a\nB\nc");
    expect(await panel.count()).toBe(0);
    await files.getByRole("button", { name: "Close the files" }).click();
    await eventually(() => files.count()).toBe(0);

    // A fork at the second message: its history ends before it, and it links back.
    await byTestId(users.nth(1), "turn-fork").click();
    const forkedFrom = byTestId(page, "forked-from");
    await forkedFrom.waitFor();
    expect(page.url()).not.toContain(sessionId);
    await eventually(() => textsOf(users.locator(".user-text"))).toEqual(["[[reply hello]]"]);
    expect(await byTestId(page, "message-assistant").count()).toBe(1);
    await eventually(() => textsOf(byTestId(forkedFrom, "forked-from-link"))).toEqual(["review"]);
    await eventually(() => textsOf(byTestId(page, "session-title"))).toEqual(["review (fork)"]);
    await screenshot(page, "chat-review-fork");
    await byTestId(forkedFrom, "forked-from-link").click();
    await eventually(() => users.count()).toBe(3);
    await eventually(() => textsOf(byTestId(page, "fork-link"))).toEqual(["review (fork)"]);
    await screenshot(page, "chat-review-origin-forks");
  });

  it("highlights a diff's code in its file's language, unified and side by side, signs and colours kept", async () => {
    const { page } = await chromium.open({ viewport: { width: 1280, height: 800 } });
    await openNewSession(page, harness.current, "highlight");
    await send(page, `${write("greet.ts", GREET_AFTER)} [[reply written]]`);
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    const changesLink = byTestId(byTestId(page, "user-turn").nth(0), "turn-changes");
    await eventually(() => textsOf(changesLink)).toEqual(["Changes · 1 file"]);
    await changesLink.click();
    const panel = byTestId(page, "review-panel");
    const greet = panel.locator('[data-testid="changed-file"][data-path="greet.ts"]');

    // Unified: each line still reads as the diff's line, sign first; its code highlighted.
    const removed = greet.locator(".diff-line.del");
    const added = greet.locator(".diff-line.add");
    await eventually(() => textsOf(removed)).toEqual(['-export const name = "old";']);
    expect(await textsOf(added)).toEqual([
      `+export const name = \`new ${PLANTED}\`;`,
      "+export function greet(): string {",
      "+ return name;",
      "+}",
    ]);
    await eventually(() => textsOf(removed.locator(".hljs-string"))).toEqual(['"old"']);
    expect(await textsOf(added.locator(".hljs-keyword"))).toEqual([
      "export",
      "const",
      "export",
      "function",
      "return",
    ]);
    expect(await textsOf(added.locator(".hljs-string"))).toEqual([`\`new ${PLANTED}\``]);
    // The sign is outside the code, uncoloured.
    expect(await textsOf(removed.locator(".diff-sign"))).toEqual(["-"]);
    expect(await textsOf(added.locator(".diff-sign"))).toEqual(["+", "+", "+", "+"]);
    expect(await greet.locator(".diff-sign [class^='hljs-']").count()).toBe(0);
    // The planted HTML in the string is text: no element made from it, nothing of it ran.
    expect(await page.locator("#app img, #app script").count()).toBe(0);
    expect(await page.evaluate("window.__planted")).toBeUndefined();
    await screenshotsWideAndPhone(page, "chat-review-highlighted");

    // Side by side: the same tokens in their cells, the signs and add/del colours kept.
    await byTestId(panel, "review-split").click();
    const split = byTestId(greet, "diff-split");
    await split.waitFor();
    const replaced = split.locator("tbody tr").nth(1).locator("td");
    expect(await textsOf(replaced)).toEqual([
      '-export const name = "old";',
      `+export const name = \`new ${PLANTED}\`;`,
    ]);
    expect(await replaced.evaluateAll((cells) => cells.map((cell) => cell.className))).toEqual([
      "diff-line del",
      "diff-line add",
    ]);
    await eventually(() => textsOf(split.locator("td.del .hljs-keyword"))).toEqual([
      "export",
      "const",
    ]);
    expect(await textsOf(split.locator("td.del .hljs-string"))).toEqual(['"old"']);
    expect(await textsOf(split.locator("td.add .hljs-keyword"))).toEqual([
      "export",
      "const",
      "export",
      "function",
      "return",
    ]);
    expect(await textsOf(split.locator("td .diff-sign"))).toEqual(["-", "+", "+", "+", "+"]);
    expect(await page.locator("#app img, #app script").count()).toBe(0);
    expect(await page.evaluate("window.__planted")).toBeUndefined();
    await screenshot(page, "chat-review-highlighted-split");
    await page.emulateMedia({ colorScheme: "dark" });
    await screenshot(page, "chat-review-highlighted-split-dark");
    await page.emulateMedia({ colorScheme: null });
  });
  it("a turn of many files: all listed at once, each diff drawn as it nears the view; opened again, the changes read before are shown while read anew", async () => {
    const { page } = await chromium.open({ viewport: { width: 1280, height: 800 } });
    await openNewSession(page, harness.current, "many files");
    const command = `mkdir -p many && for i in $(seq 1 40); do seq 1 12 | sed "s/^/line $i /" > many/file$i.ts; done`;
    await send(page, `[[tool bash ${JSON.stringify({ command })}]] [[reply written]]`);
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    const changesLink = byTestId(byTestId(page, "user-turn").nth(0), "turn-changes");
    await eventually(() => textsOf(changesLink)).toEqual(["Changes · 40 files"]);
    // The panel's code is fetched while the page is idle once a turn with changes is shown.
    await eventually(() => page.evaluate(REVIEW_CODE_FETCHED)).toBe(true);

    await changesLink.click();
    const panel = byTestId(page, "review-panel");
    await eventually(async () => (await panelPaths(page)).length).toBe(40);
    const first = panel.locator('[data-testid="changed-file"]').first();
    // The first file's diff is in view and drawn; a file far down the panel waits in a box.
    await eventually(() => first.locator(".diff-line.add").count()).toBe(12);
    const lastInList = panel.locator('[data-testid="changed-file"]').last();
    expect(await lastInList.locator(".diff-placeholder").count()).toBe(1);
    expect(await lastInList.locator(".diff-line").count()).toBe(0);
    await lastInList.scrollIntoViewIfNeeded();
    await eventually(() => lastInList.locator(".diff-line.add").count()).toBe(12);

    // Closed and opened again while the sidecar's answer is held back: the files read before
    // are listed at once, marked busy, until the answer comes.
    await byTestId(panel, "review-close").click();
    await panel.waitFor({ state: "detached" });
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route("**/changes?turn=*", async (route) => {
      await held;
      await route.continue();
    });
    await changesLink.click();
    await eventually(async () => (await panelPaths(page)).length).toBe(40);
    const list = panel.getByRole("list", { name: "Changed files" });
    expect(await list.getAttribute("aria-busy")).toBe("true");
    release();
    await eventually(() => list.getAttribute("aria-busy")).toBe("false");
    await page.unroute("**/changes?turn=*");
  });
});
