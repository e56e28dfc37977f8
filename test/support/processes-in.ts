/** Processes whose working directory is `directory` (Linux: read from /proc). */
import { readdirSync, readlinkSync } from "node:fs";
import { resolve } from "node:path";

export function processesIn(directory: string): number[] {
  const wanted = resolve(directory);
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      return readlinkSync(`/proc/${entry}/cwd`) === wanted ? [Number(entry)] : [];
    } catch {
      return []; // exited while we looked, or not ours to read
    }
  });
}
