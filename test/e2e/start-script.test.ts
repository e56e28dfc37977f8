/**
 * End to end: what `npm start` runs (`scripts/start.ts`): it starts `ocb serve --demo` (a real
 * opencode behind the scripted model), prints the chat URL with the token in its fragment,
 * serves the chat at `/` with its CSP, and Ctrl-C (SIGINT to its process group, as a terminal
 * sends it, and the copy npm forwards) stops it cleanly: exit 0, nothing it started left.
 * Needs the built chat (`npm run build:web`, which `npm test` runs first); the script would
 * build it itself otherwise.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { CONTENT_SECURITY_POLICY } from "../../src/sidecar/web/headers.js";
import { DescendantWatch } from "../support/descendants.js";
import { type RunningOcb, startOcb, untilOcb } from "../support/ocb-cli.js";

/** Safety nets, not what is tested. */
const START_BOUND_MS = 90_000;
const EXIT_BOUND_MS = 15_000;

const dirs: string[] = [];
const started: { cli: RunningOcb; watch: DescendantWatch }[] = [];
afterEach(() => {
  for (const { cli, watch } of started.splice(0)) {
    try {
      process.kill(-cli.pid, "SIGKILL"); // only does anything when the test failed
    } catch {
      // gone, as it should be
    }
    watch.stop();
    watch.killLeft();
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `scripts/start.ts` in a temp dir, its processes watched; stopped after the test. */
function startScript(): { cli: RunningOcb; watch: DescendantWatch } {
  const dir = mkdtempSync(join(tmpdir(), "ocb-start-"));
  dirs.push(dir);
  const cli = startOcb(["--dir", dir, "--store", join(dir, "store.db")], {
    entry: "scripts/start.ts",
    env: { OCB_TOKEN: "" },
  });
  const watch = new DescendantWatch(cli.pid);
  started.push({ cli, watch });
  return { cli, watch };
}

describe("npm start (scripts/start.ts)", () => {
  it("serves the chat on the demo model, prints its URL; Ctrl-C leaves nothing running", async () => {
    const { cli, watch } = startScript();
    const chat = /^chat: (http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)$/m;
    await untilOcb("the chat URL", cli, () => chat.test(cli.stdout), START_BOUND_MS);
    const [, origin = "", token = ""] = chat.exec(cli.stdout) ?? [];

    const page = await fetch(`${origin}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
    expect(await page.text()).toMatch(/<script[^>]+src="\.?\/assets\//);
    // The token of the URL is the API's; the demo model is the default one.
    const models = await fetch(`${origin}/v1/models`, {
      headers: { authorization: `Bearer ${decodeURIComponent(token)}` },
    });
    expect(models.status).toBe(200);
    // Only the demo's models: the demo is offline, and OpenCode's own need the internet.
    const catalog = (await models.json()) as { models: { providerID: string }[] };
    expect(new Set(catalog.models.map((model) => model.providerID))).toEqual(new Set(["demo"]));
    watch.poll();
    expect(watch.seen.some((process) => /opencode.* serve/.test(process.command))).toBe(true);

    // Ctrl-C: the terminal signals the group, npm forwards a copy to the script.
    process.kill(-cli.pid, "SIGINT");
    process.kill(cli.pid, "SIGINT");
    const code = await Promise.race([cli.exited, delay(EXIT_BOUND_MS, "still running" as const)]);
    expect(code, `${cli.stdout}\n${cli.stderr}`).toBe(0);
    expect(cli.stdout).toContain("nothing left running");
    const deadline = Date.now() + EXIT_BOUND_MS;
    while (watch.running().length > 0 && Date.now() < deadline) await delay(100);
    expect(watch.running()).toEqual([]);
    await expect(fetch(`${origin}/healthz`)).rejects.toThrow();
    expect(cli.stderr).not.toContain(decodeURIComponent(token));
  });

  it("killed outright (kill -9 of the script alone), leaves nothing running", async () => {
    const { cli, watch } = startScript();
    await untilOcb(
      "the sidecar listening",
      cli,
      () => /listening on/.test(cli.stdout),
      START_BOUND_MS,
    );
    watch.poll();
    expect(watch.seen.some((process) => /opencode.* serve/.test(process.command))).toBe(true);

    // No signal handler runs: the server (in a group of its own) is orphaned.
    process.kill(cli.pid, "SIGKILL");
    await cli.exited;
    const deadline = Date.now() + EXIT_BOUND_MS;
    while (watch.running().length > 0 && Date.now() < deadline) await delay(100);
    expect(watch.running()).toEqual([]);
  });
});
