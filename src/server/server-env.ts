/**
 * The environment a managed `opencode serve` runs with. Auth and config always come from
 * the launcher, never from whatever the parent process happened to have set; of the parent's
 * other variables only those on the allow-list pass (`passed-env.ts`: not the bridge's
 * secrets), and an isolated server sees none of the user's OpenCode settings.
 */
import { UsageError } from "../errors.js";
import { isRecord } from "../util/is-record.js";
import { passedEnv } from "./passed-env.js";

/** OpenCode's Basic auth user when `OPENCODE_SERVER_USERNAME` is not set. */
export const DEFAULT_USERNAME = "opencode";

/** Config the launcher adds unless the caller set the key: a managed server must not change under us. */
export const MANAGED_CONFIG_DEFAULTS: Readonly<Record<string, unknown>> = {
  autoupdate: false,
  share: "disabled",
};

// The launcher owns these: auth must match what the health probe sends, and config
// arrives through the `config` option so that the defaults above are applied.
const AUTH_VARS = ["OPENCODE_SERVER_PASSWORD", "OPENCODE_SERVER_USERNAME"];

export interface ServerEnvOptions {
  /** The parent's environment (normally `process.env`). */
  baseEnv: NodeJS.ProcessEnv;
  /** The isolated XDG roots, or `undefined` to run with the user's own config and credentials. */
  isolatedEnv: Readonly<Record<string, string>> | undefined;
  /** Names of `baseEnv` to pass besides the allow-list (`passed-env.ts`); `NAME_*` for a prefix. */
  passEnv?: readonly string[] | undefined;
  /** The caller's extra variables; they win over `baseEnv`. */
  extraEnv: Readonly<Record<string, string>> | undefined;
  password: string | undefined;
  config: Readonly<Record<string, unknown>> | undefined;
  /** Plugins of the bridge (`file://` URLs), added to the config's `plugin` list. */
  plugins?: readonly string[] | undefined;
}

/** Builds the child's environment; throws UsageError for variables that have their own option. */
export function buildServerEnv(options: ServerEnvOptions): Record<string, string> {
  const extra = options.extraEnv ?? {};
  if (extra.OPENCODE_SERVER_PASSWORD !== undefined) {
    throw new UsageError(
      "env.OPENCODE_SERVER_PASSWORD is not allowed; pass the password as the `password` option",
    );
  }
  if (extra.OPENCODE_CONFIG_CONTENT !== undefined) {
    throw new UsageError(
      "env.OPENCODE_CONFIG_CONTENT is not allowed; pass the config object as the `config` option",
    );
  }

  const isolated = options.isolatedEnv !== undefined;
  // Isolation passes no OPENCODE_* of the user (OPENCODE_CONFIG, OPENCODE_CONFIG_DIR,
  // OPENCODE_DB, OPENCODE_AUTH_CONTENT, …) nor their XDG roots: each would pull their setup back in.
  const env = passedEnv(options.baseEnv, { userSetup: !isolated, passEnv: options.passEnv });
  for (const name of AUTH_VARS) delete env[name];
  Object.assign(env, options.isolatedEnv, extra);

  // With the user's config, an OPENCODE_CONFIG_CONTENT they set stays in effect underneath ours.
  const inherited = isolated ? {} : parseConfigObject(options.baseEnv.OPENCODE_CONFIG_CONTENT);
  const config = { ...MANAGED_CONFIG_DEFAULTS, ...inherited, ...options.config };
  if (options.plugins !== undefined && options.plugins.length > 0) {
    config.plugin = [...configPlugins(config.plugin), ...options.plugins];
  }
  env.OPENCODE_CONFIG_CONTENT = serializeConfig(config);
  if (options.password !== undefined) env.OPENCODE_SERVER_PASSWORD = options.password;
  return env;
}

/** The Basic auth user the server will expect, given the environment it runs with. */
export function serverUsername(env: Readonly<Record<string, string>>): string {
  return env.OPENCODE_SERVER_USERNAME || DEFAULT_USERNAME;
}

/** The config's own `plugin` list, kept ahead of the bridge's. */
function configPlugins(value: unknown): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new UsageError("config.plugin must be a list of plugin names or paths");
  }
  return value;
}

function parseConfigObject(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      "OPENCODE_CONFIG_CONTENT in the environment is not valid JSON; fix or unset it",
      { cause: error },
    );
  }
  if (!isRecord(parsed)) {
    throw new UsageError(
      "OPENCODE_CONFIG_CONTENT in the environment is not a JSON object; fix or unset it",
    );
  }
  return parsed;
}

function serializeConfig(config: Record<string, unknown>): string {
  try {
    return JSON.stringify(config);
  } catch (error) {
    throw new UsageError("`config` must be plain JSON (no cycles, BigInt or functions)", {
      cause: error,
    });
  }
}
