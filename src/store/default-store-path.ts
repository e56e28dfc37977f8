/** Where the transcript store lives when the caller names no file. */
import { homedir } from "node:os";
import { join } from "node:path";
import { bridgeDataDir } from "../util/user-data-dir.js";

/** `$XDG_DATA_HOME/opencode-bridge/store.db`, else `~/.local/share/opencode-bridge/store.db`. */
export function defaultStorePath(
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): string {
  return join(bridgeDataDir(env, home), "store.db");
}
