/**
 * The managed server's own XDG roots: fresh ones go with the server; kept ones (`dataDir`)
 * outlive it, whoever asks to remove them, except the config file (it may hold an API key).
 */
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  createIsolatedDirs,
  isolatedDirsAt,
  keptIsolatedDirs,
  writeGlobalConfig,
} from "./isolated-dirs.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "ocb-isolated-test-"));
  made.push(dir);
  return dir;
}

describe("isolated dirs", () => {
  it("fresh ones are removed whole", async () => {
    const dirs = await createIsolatedDirs();
    made.push(dirs.root);
    await writeGlobalConfig(dirs, "{}");
    await dirs.remove();
    expect(existsSync(dirs.root)).toBe(false);
  });

  it("kept ones are made for the owner only and keep OpenCode's data, losing only the config file", async () => {
    const root = join(scratch(), "opencode");
    const dirs = await keptIsolatedDirs(root);
    expect(statSync(root).mode & 0o777).toBe(0o700);
    const sessions = join(dirs.env.XDG_DATA_HOME ?? "", "opencode.db");
    writeFileSync(sessions, "the sessions");
    await writeGlobalConfig(dirs, '{"provider":{"p":{"options":{"apiKey":"k"}}}}');
    const config = join(dirs.env.XDG_CONFIG_HOME ?? "", "opencode", "opencode.json");
    expect(existsSync(config)).toBe(true);
    await dirs.remove();
    expect(existsSync(sessions)).toBe(true);
    expect(existsSync(config)).toBe(false);
    // Named by its path alone (a leftover server's record), it is still kept.
    await isolatedDirsAt(root).remove();
    expect(existsSync(sessions)).toBe(true);
    // And made again over what is there, nothing is lost.
    await keptIsolatedDirs(root);
    expect(existsSync(sessions)).toBe(true);
  });
});
