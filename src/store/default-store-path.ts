/** Where the transcript store lives when the caller names no file. */
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/**
 * `$XDG_DATA_HOME/opencode-bridge/store.db`, else `~/.local/share/opencode-bridge/store.db`.
 * A relative `XDG_DATA_HOME` is ignored, as the XDG spec asks: it would move with the cwd.
 */
export function defaultStorePath(
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): string {
  const xdg = env.XDG_DATA_HOME;
  const dataHome = xdg !== undefined && isAbsolute(xdg) ? xdg : join(home, ".local", "share");
  return join(dataHome, "opencode-bridge", "store.db");
}
