/**
 * The files panel in the web chat, in a real Chromium against the real sidecar, opencode and
 * the scripted model: the session directory listed folder by folder with breadcrumbs back; a
 * text file shown with its line numbers; a TypeScript file highlighted (a comment across lines
 * coloured on both, the numbers still beside their lines); a file of planted HTML, highlighted
 * as HTML or inside a TypeScript string, stays text (no element made from it, nothing of it runs); a binary file said plainly; a tool card's "View file" opens the
 * file it read; on a phone the sheet fits the screen with thumb-sized entries.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
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

/** A file's content is untrusted: were this HTML, the page would run it. */
const PLANTED = `<img src=x onerror="window.__planted='img'"><script>window.__planted='script'</script>`;

/** A TypeScript file with planted HTML in a string: highlight.js's output, still text. */
const GREET_TS = [
  "/* Greets,",
  "   politely. */",
  `export const planted = \`${PLANTED}\`;`,
  'export function greet(): string { return "hi"; }',
].join("\n");

function entry(page: Page, name: string) {
  return byTestId(page, "files-panel").locator("button.file-entry", { hasText: name });
}

function crumbs(page: Page): Promise<string[]> {
  return textsOf(byTestId(page, "files-panel").locator(".breadcrumbs button"));
}

describe("the files panel", () => {
  it("browses the session directory, shows text as text with line numbers, and opens a tool card's file", async () => {
    const { directory } = harness.current;
    mkdirSync(join(directory, "src", "deep"), { recursive: true });
    writeFileSync(join(directory, "src", "deep", "notes.txt"), "first\nsecond\nthird\n");
    writeFileSync(join(directory, "page.html"), `one\n${PLANTED}\n`);
    writeFileSync(join(directory, "greet.ts"), `${GREET_TS}\n`);
    writeFileSync(join(directory, "blob.bin"), Buffer.from([0, 1, 2, 0, 255, 254, 0]));

    const { page } = await chromium.open({ viewport: { width: 1280, height: 800 } });
    await openNewSession(page, harness.current, "files");
    await byTestId(page, "files-open").click();
    const panel = byTestId(page, "files-panel");
    await entry(page, "page.html").waitFor();
    expect(await crumbs(page)).toEqual(["Session directory"]);

    // Down a folder at a time, then a file with its line numbers.
    await entry(page, "src").click();
    await entry(page, "deep").click();
    await entry(page, "notes.txt").click();
    const text = byTestId(panel, "file-text");
    await eventually(() => textsOf(text.locator(".file-lines"))).toEqual(["first second third"]);
    expect(await text.locator(".file-gutter").textContent()).toBe("1\n2\n3");
    expect(await crumbs(page)).toEqual(["Session directory", "src", "deep", "notes.txt"]);
    await screenshotsWideAndPhone(page, "chat-files-text");

    // Breadcrumbs back up.
    await panel.getByRole("button", { name: "src", exact: true }).click();
    await entry(page, "deep").waitFor();
    await panel.getByRole("button", { name: "Session directory" }).click();

    // A TypeScript file is highlighted, its text and line numbers as they were.
    await entry(page, "greet.ts").click();
    const code = text.locator(".file-lines");
    await eventually(() => code.textContent()).toBe(GREET_TS);
    expect(await textsOf(code.locator(".hljs-keyword"))).toEqual([
      "export",
      "const",
      "export",
      "function",
      "return",
    ]);
    expect(await textsOf(code.locator(".hljs-string"))).toEqual([`\`${PLANTED}\``, '"hi"']);
    // The comment across two lines is closed and opened again: coloured on both.
    expect(await textsOf(code.locator(".hljs-comment"))).toEqual(["/* Greets,", "politely. */"]);
    expect(await text.locator(".file-gutter").textContent()).toBe("1\n2\n3\n4");
    await screenshotsWideAndPhone(page, "chat-files-highlighted");
    // The HTML in its string is text: no element made from it, nothing of it ran.
    expect(await panel.locator("img, script").count()).toBe(0);
    expect(await page.evaluate("window.__planted")).toBeUndefined();

    // Planted HTML is text, highlighted as HTML: no element made from it, nothing of it ran.
    await panel.getByRole("button", { name: "Session directory" }).click();
    await entry(page, "page.html").click();
    await eventually(() => text.locator(".file-lines").textContent()).toBe(`one\n${PLANTED}`);
    expect(await text.locator(".file-lines .hljs-tag").count()).toBeGreaterThan(0);
    expect(await panel.locator("img, script").count()).toBe(0);
    expect(await page.evaluate("window.__planted")).toBeUndefined();

    // A binary file is said, not shown.
    await panel.getByRole("button", { name: "Session directory" }).click();
    await entry(page, "blob.bin").click();
    await eventually(() => byTestId(panel, "file-binary").textContent()).toMatch(
      /^A binary file \(7 bytes\)/,
    );

    // On a phone: a full-screen sheet, no sideways scroll, thumb-sized entries.
    await panel.getByRole("button", { name: "Session directory" }).click();
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    expect((await entry(page, "page.html").boundingBox())?.height).toBeGreaterThanOrEqual(44);
    expect(
      (await panel.getByRole("button", { name: "Close the files" }).boundingBox())?.height,
    ).toBeGreaterThanOrEqual(44);
    await screenshot(page, "chat-files-list-phone");
    await page.setViewportSize({ width: 1280, height: 800 });

    // Escape closes it, and the focus goes back to what opened it.
    await page.keyboard.press("Escape");
    await eventually(() => panel.count()).toBe(0);
    await eventually(() => page.evaluate("document.activeElement?.dataset.testid")).toBe(
      "files-open",
    );

    // A tool card's "View file" opens the file it read, at its place.
    const notes = join(directory, "src", "deep", "notes.txt");
    await send(page, `[[tool read ${JSON.stringify({ path: notes })}]] [[then read it]]`);
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    const card = page.locator('[data-testid="part-tool"][data-tool="read"]');
    await byTestId(card, "view-file").click();
    await eventually(() => textsOf(byTestId(panel, "file-text").locator(".file-lines"))).toEqual([
      "first second third",
    ]);
    await eventually(() => crumbs(page)).toEqual(["Session directory", "src", "deep", "notes.txt"]);
    await screenshot(page, "chat-files-from-tool-card");
  });
});
