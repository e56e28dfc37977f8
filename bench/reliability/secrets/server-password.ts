/**
 * The password `ocb serve` gave the OpenCode server it manages: random and never printed, so
 * the scan reads it from the server's environment (`/proc/<pid>/environ`, which the same user
 * may read). Linux only.
 */
import { readFileSync } from "node:fs";

const PASSWORD_VAR = "OPENCODE_SERVER_PASSWORD=";

/** The first non-empty `OPENCODE_SERVER_PASSWORD` among `pids`' environments. */
export function serverPasswordOf(pids: readonly number[]): string | undefined {
  for (const pid of pids) {
    let environ: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, "utf8");
    } catch {
      continue;
    }
    const entry = environ.split("\0").find((line) => line.startsWith(PASSWORD_VAR));
    const password = entry?.slice(PASSWORD_VAR.length);
    if (password) return password;
  }
  return undefined;
}
