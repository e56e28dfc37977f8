/** The bridge's own directory in the user's data home. */
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/**
 * `$XDG_DATA_HOME/opencode-bridge`, else `~/.local/share/opencode-bridge`. A relative
 * `XDG_DATA_HOME` is ignored, as the XDG spec asks: it would move with the cwd.
 */
export function bridgeDataDir(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  return join(userDataHome(env, home), "opencode-bridge");
}

/** `$XDG_DATA_HOME` (when absolute), else `~/.local/share`: where the user's programs keep data. */
export function userDataHome(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  const xdg = env.XDG_DATA_HOME;
  return xdg !== undefined && isAbsolute(xdg) ? xdg : join(home, ".local", "share");
}
