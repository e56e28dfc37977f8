/**
 * The web chat in a real Chromium against a real sidecar, opencode and the scripted model: a
 * message sent with Enter streams its reply as it arrives; Markdown and highlighted code;
 * tool cards (input, status, output, long output folded); a pasted image is previewed, shown
 * in the user's message and reaches the model; images picked and dropped, one removed.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { screenshot, useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import {
  assistantText,
  byTestId,
  eventually,
  openNewSession,
  send,
  slowText,
  textsOf,
  waitForOutcomes,
} from "../support/chat-page.js";

const chromium = useBrowser();
const harness = useChatHarness();

// A 1x1 PNG.
const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/**
 * Dispatches `kind` (paste or drop) of a PNG (base64 in, named `name`) on the element, as a
 * clipboard or a dragged file would.
 */
const GIVE_IMAGE = `(element, base64, kind, name) => {
  const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
  const data = new DataTransfer();
  data.items.add(new File([bytes], name, { type: "image/png" }));
  const init = { bubbles: true, cancelable: true };
  const event = kind === "paste"
    ? new ClipboardEvent("paste", { ...init, clipboardData: data })
    : new DragEvent("drop", { ...init, dataTransfer: data });
  element.dispatchEvent(event);
}`;

/** Pastes or drops a PNG on the composer. */
function giveImage(page: Page, kind: "paste" | "drop", name: string): Promise<unknown> {
  return page.evaluate(
    `(${GIVE_IMAGE})(document.querySelector('[data-testid="composer-input"]'), "${PNG_BASE64}", "${kind}", "${name}")`,
  );
}

const MARKDOWN = [
  "# Plan",
  "",
  "Some **bold** text, a list and `inline code`:",
  "",
  "- first",
  "- second",
  "",
  "```ts",
  "export function add(a: number, b: number): number {",
  "  return a + b;",
  "}",
  "```",
].join("\n");

describe("the web chat streams a conversation", () => {
  it("Enter sends; the reply streams in as it arrives, then the turn's outcome and usage", async () => {
    const { page } = await chromium.open();
    await openNewSession(page, harness.current, "stream");
    await send(page, "[[slow 30 80]]");
    await eventually(async () => textsOf(byTestId(page, "message-user"))).toEqual([
      "[[slow 30 80]]",
    ]);
    // Seen part-way: some tokens shown, not yet the last one.
    await eventually(async () => {
      const text = await assistantText(page);
      return text.includes("tok3") && !text.includes("tok30");
    }, "a partly streamed reply").toBe(true);
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    expect(await assistantText(page)).toBe(slowText(30));
    expect(await byTestId(page, "turn-usage").count()).toBe(1);
    expect(await byTestId(page, "composer-input").inputValue()).toBe("");
  });

  it("renders the reply as Markdown with highlighted code", async () => {
    const { page } = await chromium.open({ viewport: { width: 1100, height: 800 } });
    await openNewSession(page, harness.current, "markdown");
    await send(page, `[[reasoning First I think.]] [[reply ${MARKDOWN}]]`);
    await waitForOutcomes(page, 1);
    const text = byTestId(page, "part-text").last();
    expect(await textsOf(text.locator("h1"))).toEqual(["Plan"]);
    expect(await textsOf(text.locator("strong"))).toEqual(["bold"]);
    expect(await textsOf(text.locator("li"))).toEqual(["first", "second"]);
    expect(await text.locator("pre code").count()).toBe(1);
    // Highlighted: the code is split into highlight.js's token spans.
    expect(await text.locator("pre code [class*='hljs-']").count()).toBeGreaterThan(2);
    const reasoning = byTestId(page, "part-reasoning");
    expect(await reasoning.evaluate((element) => element.tagName)).toBe("DETAILS");
    expect(await textsOf(reasoning)).toEqual([expect.stringContaining("First I think.")]);
    await screenshot(page, "conversation-markdown");
  });

  it("shows each tool call as a card: tool, input, status, output; long output folded", async () => {
    const { page } = await chromium.open({ viewport: { width: 1100, height: 900 } });
    await openNewSession(page, harness.current, "tools");
    await send(
      page,
      '[[tool bash {"command":"echo from-a-card"}]] [[tool bash {"command":"seq 1 400"}]] [[then tools done]]',
    );
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    const cards = byTestId(page, "part-tool");
    expect(await cards.count()).toBe(2);
    for (const index of [0, 1]) {
      expect(await cards.nth(index).getAttribute("data-tool")).toBe("bash");
      expect(await cards.nth(index).getAttribute("data-state")).toBe("succeeded");
    }
    expect(await textsOf(byTestId(cards.nth(0), "tool-input"))).toEqual([
      expect.stringContaining("echo from-a-card"),
    ]);
    expect(await textsOf(byTestId(cards.nth(0), "tool-output"))).toEqual([
      expect.stringContaining("from-a-card"),
    ]);
    // 400 lines: folded in a <details> (around the output or inside it) that starts closed.
    const long = cards.nth(1);
    const fold = long
      .locator('details:has([data-testid="tool-output"])')
      .or(byTestId(long, "tool-output").locator("details"));
    expect(await fold.count()).toBeGreaterThan(0);
    expect(await fold.first().getAttribute("open")).toBeNull();
    expect((await textsOf(byTestId(long, "tool-output"))).join(" ")).toContain("400");
    expect(await assistantText(page)).toContain("tools done");
    await screenshot(page, "tool-cards");
  });

  it("a pasted image is previewed, sent, shown in the message, and reaches the model", async () => {
    const { page } = await chromium.open();
    await openNewSession(page, harness.current, "image");
    const input = byTestId(page, "composer-input");
    await input.focus();
    await giveImage(page, "paste", "pixel.png");
    await eventually(() => byTestId(page, "image-preview").count()).toBe(1);
    const marker = "[[reply seen the pixel]]";
    await send(page, marker);
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    expect(await assistantText(page)).toBe("seen the pixel");
    expect(await byTestId(page, "image-preview").count()).toBe(0);
    const attachment = byTestId(byTestId(page, "message-user"), "user-attachment");
    expect(await attachment.count()).toBe(1);
    expect(await attachment.locator("img").count()).toBe(1);
    const request = harness.current.model.requests.find((recorded) =>
      recorded.lastUserText.includes(marker),
    );
    const image = request?.attachments.find((part) => part.mime === "image/png");
    expect(image?.url).toBe(`data:image/png;base64,${PNG_BASE64}`);
  });

  it("images picked and dropped are previewed and can be removed before sending", async () => {
    const { page } = await chromium.open();
    await openNewSession(page, harness.current, "pick and drop");
    await byTestId(page, "attach-image").setInputFiles({
      name: "picked.png",
      mimeType: "image/png",
      buffer: Buffer.from(PNG_BASE64, "base64"),
    });
    await giveImage(page, "drop", "dropped.png");
    const previews = byTestId(page, "image-preview");
    await eventually(() => previews.count()).toBe(2);
    await byTestId(previews.first(), "remove-attachment").click();
    await eventually(() => previews.count()).toBe(1);
    const marker = "[[reply one image left]]";
    await send(page, marker);
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    const request = harness.current.model.requests.find((recorded) =>
      recorded.lastUserText.includes(marker),
    );
    expect(request?.attachments.filter((part) => part.mime === "image/png")).toHaveLength(1);
    expect(await byTestId(page, "user-attachment").count()).toBe(1);
  });
});
