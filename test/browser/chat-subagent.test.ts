/**
 * A subagent in the web chat, in a real Chromium: on the serve-legacy backend (1.18's /api
 * runtime has no task tool) a `task` call shows as a subagent card in the parent's turn, whose
 * link opens the child's own conversation.
 */
import { describe, expect, it } from "vitest";
import { screenshot, useBrowser } from "../support/browser.js";
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

const chromium = useBrowser();
const harness = useChatHarness({ backend: "serve-legacy" });

const task = (prompt: string) =>
  `[[tool task ${JSON.stringify({ description: "child work", prompt, subagent_type: "general" })}]]`;

describe("subagents in the web chat", () => {
  it("shows the subagent as a card linked to its child conversation", async () => {
    const { page } = await chromium.open({ viewport: { width: 1100, height: 800 } });
    await openNewSession(page, harness.current, "subagent");
    await send(page, `${task("[[reply from the child]]")} [[then parent done]]`);
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    expect(await assistantText(page)).toContain("parent done");
    const card = byTestId(page, "part-subagent");
    expect(await card.count()).toBe(1);
    expect((await textsOf(card)).join(" ")).toContain("child work");
    await screenshot(page, "subagent");
    // The child's reply is a message of its own conversation, shown once the link is followed.
    const childReply = async () =>
      (await textsOf(byTestId(page, "part-text"))).filter((text) => text === "from the child");
    expect(await childReply()).toEqual([]);
    await byTestId(card, "subagent-link").click();
    await eventually(childReply).toEqual(["from the child"]);
  });
});
