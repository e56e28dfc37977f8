/**
 * A copy of this checkout in which npm may build and pack: `prepack` and `npm run build` empty
 * and rebuild `dist/`, and in place that pulled `dist/web` from under the browser tests running
 * beside them (a clean clone's CI failed on it once).
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The checkout's files (tracked, and untracked but not ignored: a change not yet committed is
 * copied too) copied to `into`, its node_modules linked.
 */
export function copyOfCheckout(into: string): string {
  const listed = execFileSync(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 },
  );
  for (const file of listed.toString("utf8").split("\0")) {
    if (file === "" || !existsSync(join(REPO_ROOT, file))) continue; // deleted, not yet committed
    mkdirSync(dirname(join(into, file)), { recursive: true });
    cpSync(join(REPO_ROOT, file), join(into, file));
  }
  symlinkSync(join(REPO_ROOT, "node_modules"), join(into, "node_modules"), "dir");
  return into;
}

/**
 * The environment for npm run elsewhere: npm's own variables from an enclosing `npm test` go
 * (npm_config_local_prefix would point npm back at this checkout), the cache and config
 * locations stay so that an install finds the same cache.
 */
export function envOutsideNpm(extra: Record<string, string>): NodeJS.ProcessEnv {
  const kept = new Set([
    "npm_config_cache",
    "npm_config_userconfig",
    "npm_config_globalconfig",
    "npm_config_registry",
  ]);
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    const lower = key.toLowerCase();
    if ((lower.startsWith("npm_") && !kept.has(lower)) || key === "INIT_CWD") continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}
