/**
 * End to end: what `npm start` runs (`scripts/start.ts`): it starts `ocb serve --demo` (a real
 * opencode behind the scripted model), prints the chat URL with the token in its fragment,
 * serves the chat at `/` with its CSP, and Ctrl-C (SIGINT to its process group, as a terminal
 * sends it, and the copy npm forwards) stops it cleanly: exit 0, nothing it started left.
 * Needs the built chat (`npm run build:web`, which `npm test` runs first); the script would
 * build it itself otherwise.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONTENT_SECURITY_POLICY } from "../../src/web-files/web-headers.js";
import { untilOcb } from "../support/ocb-cli.js";
import {
  CHAT_LINE,
  ctrlC,
  type StartedScript,
  untilNothingLeft,
  useStartScript,
} from "../support/start-script.js";

/** Safety nets, not what is tested. */
const START_BOUND_MS = 90_000;

const scripts = useStartScript();

/** `scripts/start.ts` in a temp dir of its own. */
function startScript(): StartedScript {
  const dir = scripts.tempDir("ocb-start-");
  return scripts.start(["--dir", dir, "--store", join(dir, "store.db")]);
}

describe("npm start (scripts/start.ts)", () => {
  it("serves the chat on the demo model, prints its URL; Ctrl-C leaves nothing running", async () => {
    const { cli, watch } = startScript();
    await untilOcb("the chat URL", cli, () => CHAT_LINE.test(cli.stdout), START_BOUND_MS);
    const [, origin = "", token = ""] = CHAT_LINE.exec(cli.stdout) ?? [];

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

    await ctrlC({ cli, watch });
    expect(cli.stdout).toContain("nothing left running");
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
    await untilNothingLeft(watch);
  });
});
