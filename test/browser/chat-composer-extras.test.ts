/**
 * The composer's model picker and files by path, in a real Chromium against the real
 * opencode: the picker lists the sidecar's catalog and switches the session's model (the next
 * turn runs on it, a reload shows it); a file attached by its path in the session directory
 * (an image: the demo model's OpenAI-style API takes images, not text files) reaches the model
 * and shows on the message; one outside is refused and given back.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import {
  assistantText,
  byTestId,
  eventually,
  openNewSession,
  send,
  textsOf,
  waitForOutcomes,
} from "../support/chat-page.js";

// A 1x1 PNG.
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const chromium = useBrowser();
const harness = useChatHarness();

describe("the composer's model picker and files by path", () => {
  it("the model picker lists the catalog and switches the session's model for its next turn", async () => {
    const { page } = await chromium.open();
    const id = await openNewSession(page, harness.current, "switch model");
    const picker = byTestId(page, "model-picker");
    await eventually(() => picker.inputValue()).toBe("demo/demo-1");
    const offered = await picker
      .locator("option")
      .evaluateAll((options) =>
        options.map((option) => (option as unknown as { value: string }).value),
      );
    expect(offered).toEqual(expect.arrayContaining(["demo/demo-1", "demo/demo-2"]));

    await picker.selectOption("demo/demo-2");
    await eventually(async () => (await harness.current.client.getSession(id)).model).toEqual({
      providerID: "demo",
      modelID: "demo-2",
    });
    await send(page, "[[reply on the second model]]");
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    expect(await assistantText(page)).toBe("on the second model");
    const request = harness.current.model.requests.find((recorded) =>
      recorded.lastUserText.includes("on the second model"),
    );
    expect(request?.model).toBe("demo-2");
    // The page shows the session's model, not only what was picked in it.
    await page.reload();
    await eventually(() => byTestId(page, "model-picker").inputValue()).toBe("demo/demo-2");
  });

  it("a file by its path reaches the model; one outside the directory is refused and given back", async () => {
    const { page, expectErrors } = await chromium.open();
    // The refused send's answer.
    expectErrors(/status of 400/);
    await openNewSession(page, harness.current, "files by path");
    writeFileSync(join(harness.current.directory, "pixel-by-path.png"), Buffer.from(PNG, "base64"));
    const path = byTestId(page, "attach-path");
    await path.fill("pixel-by-path.png");
    await path.press("Enter");
    expect(await textsOf(byTestId(page, "attachment-chip"))).toEqual([
      expect.stringContaining("pixel-by-path.png"),
    ]);
    await send(page, "[[reply seen the file]]");
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    expect(await assistantText(page)).toBe("seen the file");
    expect(await byTestId(page, "attachment-chip").count()).toBe(0);
    expect(await textsOf(byTestId(page, "user-attachment"))).toEqual([
      expect.stringContaining("pixel-by-path.png"),
    ]);
    const request = harness.current.model.requests.find((recorded) =>
      recorded.lastUserText.includes("seen the file"),
    );
    const image = request?.attachments.find((part) => part.mime === "image/png");
    expect(image?.url).toBe(`data:image/png;base64,${PNG}`);

    await path.fill("../outside-the-directory.txt");
    await path.press("Enter");
    const input = byTestId(page, "composer-input");
    await input.fill("[[reply never sent]]");
    await input.press("Enter");
    await eventually(async () => (await textsOf(page.getByRole("alert"))).join(" ")).toContain(
      "outside the session directory",
    );
    // Not admitted: the message and its attachment are back in the composer.
    expect(await input.inputValue()).toBe("[[reply never sent]]");
    expect(await textsOf(byTestId(page, "attachment-chip"))).toEqual([
      expect.stringContaining("outside-the-directory.txt"),
    ]);
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
  });
});
