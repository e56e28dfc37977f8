/**
 * Whether `dist/web` needs building: missing, or older than a file under `web/` (its sources,
 * its config). `npm start` builds it first then, so a checkout never serves a stale chat.
 */
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** Why the chat must be built first (a sentence), or undefined when `dist/web` is up to date. */
export function webBuildReason(packageRoot: string): string | undefined {
  const sources = join(packageRoot, "web");
  const built = join(packageRoot, "dist", "web", "index.html");
  const builtAt = modifiedAt(built);
  if (builtAt === undefined) return "dist/web is not built yet";
  const newer = newestFile(sources);
  if (newer !== undefined && newer.at > builtAt) {
    return `${relative(packageRoot, newer.path)} changed since dist/web was built`;
  }
  return undefined;
}

function modifiedAt(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** The most recently modified file under `directory` (none when it does not exist). */
function newestFile(directory: string): { path: string; at: number } | undefined {
  let newest: { path: string; at: number } | undefined;
  let entries: string[];
  try {
    entries = readdirSync(directory, { recursive: true, encoding: "utf8" });
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    const path = join(directory, entry);
    const stats = statSync(path, { throwIfNoEntry: false });
    if (stats?.isFile() && (newest === undefined || stats.mtimeMs > newest.at)) {
      newest = { path, at: stats.mtimeMs };
    }
  }
  return newest;
}
