/**
 * The environment an OpenCode process of ours runs with (`serve` or `run`), and the isolated
 * dirs behind it: with isolation, fresh XDG roots whose global config file holds the config
 * (the `/api` catalog reads only that file, not `OPENCODE_CONFIG_CONTENT`). Either way the
 * config loads the bridge's plugin that hides its secrets from tools (`hide-secrets-plugin.ts`).
 */
import { mkdir } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { bridgeDataDir } from "../util/user-data-dir.js";
import { markConfigDependenciesInstalled, writeHideSecretsPlugin } from "./hide-secrets-plugin.js";
import {
  createIsolatedDirs,
  type IsolatedDirs,
  keptIsolatedDirs,
  writeGlobalConfig,
} from "./isolated-dirs.js";
import { buildServerEnv } from "./server-env.js";

export interface PreparedEnv {
  env: Record<string, string>;
  /** The isolated dirs, to remove when done; `undefined` with the user's own config. */
  dirs: IsolatedDirs | undefined;
}

export async function prepareOpencodeEnv(options: {
  inheritUserConfig?: boolean | undefined;
  env?: Record<string, string> | undefined;
  /** Names of the bridge's environment to pass besides the allow-list (`passed-env.ts`). */
  passEnv?: readonly string[] | undefined;
  password: string | undefined;
  config?: Record<string, unknown> | undefined;
  /** Isolated dirs to use again (a restarted server keeps its sessions); default fresh ones. */
  dirs?: IsolatedDirs | undefined;
  /** Kept isolated dirs at this root, when no `dirs` are given (see `keptIsolatedDirs`). */
  dataDir?: string | undefined;
}): Promise<PreparedEnv> {
  const dirs = options.inheritUserConfig
    ? undefined
    : (options.dirs ??
      (options.dataDir === undefined
        ? await createIsolatedDirs()
        : await keptIsolatedDirs(options.dataDir)));
  try {
    // In the bridge's own data dir, not the isolated roots: a server with the user's config
    // has none, and the file holds no secret.
    const plugin = await writeHideSecretsPlugin(join(bridgeDataDir(), "opencode-plugins"));
    const env = buildServerEnv({
      baseEnv: process.env,
      isolatedEnv: dirs?.env,
      extraEnv: options.env,
      passEnv: options.passEnv,
      password: options.password,
      config: options.config,
      plugins: [plugin],
    });
    if (dirs !== undefined && env.OPENCODE_CONFIG_CONTENT !== undefined) {
      await writeGlobalConfig(dirs, env.OPENCODE_CONFIG_CONTENT);
    }
    if (dirs?.env.XDG_CONFIG_HOME !== undefined) {
      await markConfigDependenciesInstalled(join(dirs.env.XDG_CONFIG_HOME, "opencode"));
    }
    return { env, dirs };
  } catch (error) {
    if (options.dirs === undefined) await dirs?.remove();
    throw error;
  }
}

/**
 * Where OpenCode keeps its own config, data, cache and state (made when missing): the isolated
 * root, or the user's own XDG dirs. A sandbox lets it write there, whatever else it forbids.
 */
export async function opencodeStateDirs(
  dirs: IsolatedDirs | undefined,
  env: Readonly<Record<string, string>>,
): Promise<string[]> {
  if (dirs !== undefined) return [dirs.root];
  const home = env.HOME ?? homedir();
  const roots = [
    env.XDG_CONFIG_HOME ?? join(home, ".config"),
    env.XDG_DATA_HOME ?? join(home, ".local", "share"),
    env.XDG_CACHE_HOME ?? join(home, ".cache"),
    env.XDG_STATE_HOME ?? join(home, ".local", "state"),
  ];
  const own = roots.map((root) => join(root, "opencode"));
  await Promise.all(own.map((dir) => mkdir(dir, { recursive: true })));
  return own;
}
