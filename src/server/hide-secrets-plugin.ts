/**
 * An OpenCode plugin of the bridge that keeps the two secrets the launcher must hand OpenCode
 * through its environment out of the processes OpenCode starts: `OPENCODE_SERVER_PASSWORD`
 * (the server's Basic auth) and `OPENCODE_CONFIG_CONTENT` (the config, which may carry a
 * provider's API key). Without it, `env` in the `bash` tool prints both to the model, hence to
 * its provider and into the transcript.
 *
 * Measured on OpenCode 1.18.33:
 * - the password is read once, when the server starts (its auth layer is built then): deleted
 *   from OpenCode's `process.env` afterwards, the server still refuses a request without it or
 *   with a wrong one;
 * - the config is read again for every project opened (one opened after it was deleted had
 *   none of its providers), so it stays readable by name but is made non-enumerable: a child's
 *   environment is built by enumerating `process.env` (`{...process.env}`), so no child gets it;
 * - the `/api` surface loads only plugins of the new shape (`default: { id, setup }`), and its
 *   `bash` tool calls no `shell.env` hook; the legacy surface loads only the old shape (a
 *   `server` function): the module has both, each hides the same way, whichever runs first.
 *
 * With any plugin configured, OpenCode's legacy surface waits, before a project's first
 * request, for its background `npm install @opencode-ai/plugin` into each config dir (offline,
 * until that install fails: 10 to 30 s measured here). The isolated config dir is marked as
 * installed (`markConfigDependenciesInstalled`): our plugin imports nothing. A user's own
 * config dir normally has that install already.
 *
 * - `/proc/<OpenCode's pid>/environ` (readable by a tool of the same user) shows the block the
 *   process started with, not `process.env`: the plugin overwrites the two values in that
 *   block (through `bun:ffi`, at the addresses `/proc/self/stat` gives); OpenCode's copies in
 *   `process.env` are unaffected.
 *
 * What this does not stop: the isolated config file (`writeGlobalConfig`), readable by a tool of
 * the same user; and anything OpenCode starts before a plugin runs. See docs/sidecar.md.
 */
import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** The variables whose values the plugin hides. */
export const HIDDEN_FROM_TOOLS = ["OPENCODE_SERVER_PASSWORD", "OPENCODE_CONFIG_CONTENT"] as const;

/** The plugin's source: plain JavaScript that OpenCode (Bun) imports, no dependency. */
export const HIDE_SECRETS_PLUGIN_SOURCE = `// Written by opencode-bridge (src/server/hide-secrets-plugin.ts) at every server start:
// keeps the bridge's secrets out of the environment of every process OpenCode starts.
const HIDDEN = ${JSON.stringify(HIDDEN_FROM_TOOLS)};

async function hideSecrets() {
  // Read once, when the server started.
  delete process.env.OPENCODE_SERVER_PASSWORD;
  // Read again for each project opened: kept readable by name, left out of every copy.
  const config = process.env.OPENCODE_CONFIG_CONTENT;
  if (config !== undefined) {
    Object.defineProperty(process.env, "OPENCODE_CONFIG_CONTENT", {
      value: config,
      enumerable: false,
      writable: true,
      configurable: true,
    });
  }
  await blankInitialEnvironment();
}

// /proc/<pid>/environ shows the environment block the process started with, whatever
// process.env became since; a tool of the same user can read it. The values in that block
// are overwritten with "*" (the process.env values above are copies and stay as they are).
async function blankInitialEnvironment() {
  try {
    const { readFileSync } = await import("node:fs");
    const { toArrayBuffer } = await import("bun:ffi");
    const stat = readFileSync("/proc/self/stat", "utf8");
    // Fields 50 and 51 (env_start, env_end); the second field may hold spaces, up to ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const start = Number(fields[47]);
    const end = Number(fields[48]);
    if (!(start > 0 && end > start)) return;
    const block = new Uint8Array(toArrayBuffer(start, 0, end - start));
    for (let at = 0; at < block.length; ) {
      let stop = block.indexOf(0, at);
      if (stop === -1) stop = block.length;
      for (const name of HIDDEN) {
        const prefix = name + "=";
        const head = String.fromCharCode(...block.subarray(at, Math.min(stop, at + prefix.length)));
        if (head === prefix) block.fill(0x2a, at + prefix.length, stop);
      }
      at = stop + 1;
    }
  } catch {
    // Not Linux, or no bun:ffi: the block stays as it was (see docs/sidecar.md).
  }
}

export default {
  id: "opencode-bridge-hide-secrets",
  // The /api surface's plugins.
  setup: async () => {
    await hideSecrets();
  },
  // The legacy surface's plugins.
  server: async () => {
    await hideSecrets();
    return {};
  },
};
`;

const FILE_NAME = "hide-bridge-secrets.js";

/**
 * Writes the plugin into `dir` (made private when missing) and returns its `file://` URL, for
 * the config's `plugin` list. Written to a temp name and renamed, so that a server starting
 * at the same time never imports a half-written file.
 */
export async function writeHideSecretsPlugin(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, FILE_NAME);
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await writeFile(temp, HIDE_SECRETS_PLUGIN_SOURCE, { mode: 0o644 });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return pathToFileURL(file).href;
}

/**
 * Makes OpenCode 1.18.33 skip its dependency install into an isolated config dir (see the
 * module comment): it installs when `node_modules` is missing or `package-lock.json` lacks a
 * dependency it wants, and otherwise leaves the dir alone.
 */
export async function markConfigDependenciesInstalled(opencodeConfigDir: string): Promise<void> {
  await mkdir(join(opencodeConfigDir, "node_modules"), { recursive: true });
  const lock = { packages: { "": { dependencies: { "@opencode-ai/plugin": "*" } } } };
  await writeFile(join(opencodeConfigDir, "package-lock.json"), `${JSON.stringify(lock)}\n`);
}
