/**
 * Model output is untrusted: a reply carrying HTML with event handlers, a script, and
 * `javascript:` links is rendered inert in a real Chromium (no handler, no script, no such
 * link; nothing runs; no CSP violation is even attempted, which the page's error check would
 * catch), and ordinary links open safely.
 */
import { describe, expect, it } from "vitest";
import { useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import {
  assistantText,
  byTestId,
  openNewSession,
  send,
  waitForOutcomes,
} from "../support/chat-page.js";

const chromium = useBrowser();
const harness = useChatHarness();

const HOSTILE = [
  'Look: <img src=x onerror="window.__pwned = 1">',
  "a [markdown link](javascript:window.__pwned=2)",
  '<a href="javascript:window.__pwned=3">an HTML link</a>',
  '<a href=" JaVaScRiPt:window.__pwned=4">a disguised link</a>',
  "<script>window.__pwned = 5</script>",
  '<svg><g onload="window.__pwned = 6"></g></svg>',
  '<iframe src="javascript:parent.__pwned=7"></iframe>',
  "and [a safe one](https://example.com/docs).",
].join(" ");

/** What the rendered reply holds that could run: handlers, scripts, frames, javascript: URLs. */
const ACTIVE_CONTENT = `(() => {
  const conversation = document.querySelector('[data-testid="conversation"]');
  const all = [...conversation.querySelectorAll("*")];
  return {
    handlers: all.flatMap((el) => [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => el.tagName + " " + a.name)),
    scripts: conversation.querySelectorAll("script, iframe, object, embed").length,
    javascriptUrls: all.flatMap((el) => [...el.attributes].filter((a) => /^\\s*javascript:/i.test(a.value)).map((a) => el.tagName + " " + a.name)),
    links: [...conversation.querySelectorAll("a")].map((a) => ({ href: a.getAttribute("href"), protocol: a.href ? new URL(a.href).protocol : null, target: a.getAttribute("target"), rel: a.getAttribute("rel") })),
  };
})()`;

interface ActiveContent {
  handlers: string[];
  scripts: number;
  javascriptUrls: string[];
  links: {
    href: string | null;
    protocol: string | null;
    target: string | null;
    rel: string | null;
  }[];
}

describe("untrusted model output", () => {
  it("a reply with HTML handlers, scripts and javascript: links is rendered inert", async () => {
    const { page, expectErrors } = await chromium.open();
    // The sanitised <img src=x> may still be fetched (and not found): that is not a script.
    expectErrors(/Failed to load resource: the server responded with a status of 404/);
    await openNewSession(page, harness.current, "hostile reply");
    await send(page, `[[reply ${HOSTILE}]]`);
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    expect(await assistantText(page)).toContain("Look:");
    const found = await page.evaluate<ActiveContent>(ACTIVE_CONTENT);
    expect(found.handlers).toEqual([]);
    expect(found.scripts).toBe(0);
    expect(found.javascriptUrls).toEqual([]);
    for (const link of found.links) {
      expect(link.protocol).not.toBe("javascript:");
      if (link.target === "_blank") expect(link.rel ?? "").toMatch(/noopener|noreferrer/);
    }
    expect(found.links.map((link) => link.href)).toContain("https://example.com/docs");
    // Clicking what was meant to be the script links runs nothing either.
    const text = byTestId(page, "part-text").last();
    for (const label of ["markdown link", "an HTML link", "a disguised link"]) {
      const link = text.locator("a", { hasText: label });
      if ((await link.count()) > 0) await link.click({ noWaitAfter: true });
    }
    expect(await page.evaluate("window.__pwned")).toBeUndefined();
  });
});
