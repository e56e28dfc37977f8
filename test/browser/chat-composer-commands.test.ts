/**
 * The composer's pickers, in a real Chromium against the real opencode, in a project that
 * defines two commands (`.opencode/command/`, one whose description plants HTML) and a text
 * file: `/` lists the project's commands, filtered as one types and picked by the keyboard,
 * and a message that starts with one runs it (the model gets its template expanded), while an
 * unknown `/word` goes as text; `@` plus three letters finds the file, attaches it (its content
 * reaches the model) and a failed search says so; the agent picker switches the session's
 * agent; a draft with a picked file survives opening another session. Nothing planted runs.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { screenshot, screenshotsWideAndPhone, useBrowser } from "../support/browser.js";
import { useChatHarness } from "../support/chat-harness.js";
import {
  assistantText,
  byTestId,
  eventually,
  openNewSession,
  openSession,
  textsOf,
  waitForOutcomes,
} from "../support/chat-page.js";

const PLANTED = `<img src=x onerror="window.__planted=1"><script>window.__planted=2</script>`;
const SECRET = "the-notes-say-kumquat-42";

/** The sessions' directory: two commands and a text file deep enough to need a search. */
function project(): string {
  const directory = mkdtempSync(join(tmpdir(), "ocb-composer-commands-"));
  const write = (path: string, text: string) => {
    mkdirSync(join(directory, path, ".."), { recursive: true });
    writeFileSync(join(directory, path), text);
  };
  write(
    ".opencode/command/greet.md",
    "---\ndescription: Greets someone by name\n---\n[[reply hello $ARGUMENTS from the command]]\n",
  );
  write(
    ".opencode/command/planted.md",
    `---\ndescription: '${PLANTED}'\n---\n[[reply planted ran]]\n`,
  );
  write("docs/deep/notes-alpha.md", `# Notes\n\n${SECRET}\n`);
  write("docs/other.txt", "nothing to see\n");
  return directory;
}

const directory = project();
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const chromium = useBrowser();
const harness = useChatHarness({ directory });

const DESKTOP = { width: 1280, height: 800 };

const box = (page: Page) => byTestId(page, "composer-input");
/** Each option of the open list: its parts (name, hint, description) joined by spaces. */
const suggestions = (page: Page) =>
  byTestId(page, "suggestion").evaluateAll((options) =>
    options.map((option) =>
      [...option.children].map((part) => (part.textContent ?? "").trim()).join(" "),
    ),
  );
const activeOption = (page: Page) =>
  page.evaluate<string | null>(
    `(() => { const id = document.querySelector('[data-testid="composer-input"]').getAttribute("aria-activedescendant"); return id && document.getElementById(id)?.getAttribute("data-value"); })()`,
  );
const planted = (page: Page) => page.evaluate<unknown>(`window.__planted ?? null`);

/** Types `text` key by key (as a user does: the pickers follow the caret). */
async function typeIn(page: Page, text: string): Promise<void> {
  await box(page).pressSequentially(text);
}

describe("the composer's pickers", () => {
  it("/ lists the project's commands as text; a picked one runs with its arguments, an unknown /word goes as text", async () => {
    const { page } = await chromium.open({ viewport: DESKTOP });
    const id = await openNewSession(page, harness.current, "commands");
    await box(page).click();
    await typeIn(page, "/");
    await eventually(() => suggestions(page), "the project's commands").toEqual(
      expect.arrayContaining([
        "/greet $ARGUMENTS Greets someone by name",
        expect.stringContaining("/planted"),
      ]),
    );
    // The planted description is shown as its text, and nothing of it runs.
    const plantedOption = byTestId(page, "suggestion").filter({ hasText: "/planted" });
    expect(await textsOf(byTestId(plantedOption, "suggestion-detail"))).toEqual([PLANTED]);
    expect(await byTestId(page, "suggestions").locator("img, script").count()).toBe(0);
    expect(await planted(page)).toBeNull();
    await screenshotsWideAndPhone(page, "composer-commands");
    // On a phone: nothing wider than the screen, and every option a thumb's target.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(
      await page.evaluate<boolean>(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth",
      ),
    ).toBe(true);
    const heights = await byTestId(page, "suggestion").evaluateAll((options) =>
      options.map((option) => option.getBoundingClientRect().height),
    );
    expect(Math.min(...heights)).toBeGreaterThanOrEqual(44);
    await page.setViewportSize(DESKTOP);

    // Filtered as one types; the arrows move the active option, Tab picks it.
    await typeIn(page, "gr");
    await eventually(() => suggestions(page)).toEqual(["/greet $ARGUMENTS Greets someone by name"]);
    expect(await activeOption(page)).toBe("/greet");
    await box(page).press("ArrowDown");
    expect(await activeOption(page)).toBe("/greet");
    await box(page).press("Tab");
    expect(await box(page).inputValue()).toBe("/greet ");
    expect(await byTestId(page, "suggestions").count()).toBe(0);
    await screenshot(page, "composer-command-note");
    expect(await textsOf(byTestId(page, "command-note"))).toEqual([
      "Runs the command /greet $ARGUMENTS: Greets someone by name",
    ]);
    await typeIn(page, "big world");
    await box(page).press("Enter");
    await eventually(() => box(page).inputValue(), "the box emptied").toBe("");
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    expect(await assistantText(page)).toBe("hello big world from the command");
    // The model got the template with the arguments put in, not "/greet big world".
    const request = harness.current.model.requests.find((recorded) =>
      recorded.lastUserText.includes("hello big world from the command"),
    );
    expect(request?.lastUserText).toContain("[[reply hello big world from the command]]");
    expect(request?.lastUserText).not.toContain("/greet");

    // Escape closes the list; an unknown /word says it goes as text, and does.
    await typeIn(page, "/gre");
    await eventually(() => suggestions(page)).toHaveLength(1);
    await box(page).press("Escape");
    expect(await byTestId(page, "suggestions").count()).toBe(0);
    await box(page).fill("");
    await typeIn(page, "/nosuch");
    await eventually(async () => textsOf(byTestId(page, "suggestion-status"))).toEqual([
      "No command starts with /nosuch: Enter sends the message as text.",
    ]);
    await typeIn(page, " [[reply sent as text]]");
    await box(page).press("Enter");
    expect(await waitForOutcomes(page, 2)).toEqual(["completed", "completed"]);
    expect(await assistantText(page)).toBe("sent as text");
    const asText = harness.current.model.requests.find((recorded) =>
      recorded.lastUserText.includes("sent as text"),
    );
    expect(asText?.lastUserText).toContain("/nosuch [[reply sent as text]]");
    expect((await harness.current.client.getSession(id)).running).toBe(false);
    expect(await planted(page)).toBeNull();
  });

  it("@ and three letters finds a file; picked, it is attached and its content reaches the model; a failed search says so", async () => {
    const { page, expectErrors } = await chromium.open({ viewport: DESKTOP });
    // The refused search's answer (a query over the sidecar's bound).
    expectErrors(/status of 400/);
    await openNewSession(page, harness.current, "files");
    await box(page).click();
    await typeIn(page, "Summarise @alp");
    await eventually(() => suggestions(page), "the file found").toEqual([
      "docs/deep/notes-alpha.md",
    ]);
    await screenshot(page, "composer-file-picker");
    await box(page).press("Enter");
    expect(await box(page).inputValue()).toBe("Summarise @docs/deep/notes-alpha.md ");
    expect(await textsOf(byTestId(page, "attachment-chip"))).toEqual([
      expect.stringContaining("docs/deep/notes-alpha.md"),
    ]);
    await typeIn(page, "[[reply read the notes]]");
    await box(page).press("Enter");
    expect(await waitForOutcomes(page, 1)).toEqual(["completed"]);
    expect(await assistantText(page)).toBe("read the notes");
    const request = harness.current.model.requests.find((recorded) =>
      recorded.lastUserText.includes("read the notes"),
    );
    expect(request?.lastUserText).toContain("Summarise @docs/deep/notes-alpha.md");
    expect(JSON.stringify(request?.messages)).toContain(SECRET);

    await typeIn(page, `@${"z".repeat(201)}`);
    await eventually(async () =>
      (await textsOf(byTestId(page, "suggestion-status"))).join(" "),
    ).toContain("Could not search the files");
  });

  it("the agent picker switches the session's agent; a draft with a picked file survives another session", async () => {
    const { page } = await chromium.open({ viewport: DESKTOP });
    // Made first, so that the page lists it (a reload would lose the draft: it is in memory).
    const second = (await harness.current.client.createSession({ title: "the other" })).id;
    const first = await openNewSession(page, harness.current, "agent and draft");
    const picker = byTestId(page, "agent-picker");
    await eventually(
      async () => picker.locator("option").count(),
      "the agents listed",
    ).toBeGreaterThan(1);
    await picker.selectOption("plan");
    await eventually(async () => (await harness.current.client.getSession(first)).agent).toBe(
      "plan",
    );
    await eventually(() => textsOf(byTestId(page, "agent-picker-label"))).toEqual(["plan"]);

    await box(page).click();
    await typeIn(page, "keep this @alp");
    await eventually(() => suggestions(page)).toEqual(["docs/deep/notes-alpha.md"]);
    await box(page).press("Enter");
    await openSession(page, second);
    expect(await box(page).inputValue()).toBe("");
    expect(await byTestId(page, "attachment-chip").count()).toBe(0);
    await openSession(page, first);
    expect(await box(page).inputValue()).toBe("keep this @docs/deep/notes-alpha.md ");
    expect(await textsOf(byTestId(page, "attachment-chip"))).toEqual([
      expect.stringContaining("docs/deep/notes-alpha.md"),
    ]);
    await eventually(() => picker.inputValue()).toBe("plan");
    await screenshot(page, "composer-agent-and-draft");
  });
});
