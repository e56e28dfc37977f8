/**
 * What a process holds, read from inside it: its open file descriptors (`/proc/self/fd`), the
 * resources that keep its event loop alive (`process.getActiveResourcesInfo()`, counted by
 * kind), and its memory. Linux only (`/proc`), as the suite is.
 */
import { readdirSync, readFileSync } from "node:fs";
import { getHeapCodeStatistics } from "node:v8";
import { collectGarbage } from "../../../test/support/collect-garbage.js";

export interface HeldResources {
  /** Entries of `/proc/self/fd`, less the one the listing itself holds open. */
  fds: number;
  /** Active handles and requests by kind: `{ TCPSocketWrap: 2, Timeout: 1 }`. */
  active: Record<string, number>;
}

export interface MemorySample {
  /** Milliseconds since the child started sampling. */
  atMs: number;
  rssBytes: number;
  /** `heapUsed` after a full garbage collection. */
  heapBytes: number;
  /**
   * Of which V8's compiled code: machine code and bytecode, each with its metadata
   * (deoptimisation data, relocation info; constant pools, source positions).
   */
  codeBytes: number;
  /** The heap V8 has reserved, and the anonymous part of RSS. */
  heapTotalBytes: number;
  anonBytes: number;
  fds: number;
  /** Turns ended so far, over all sessions. */
  turns: number;
}

export function heldResources(): HeldResources {
  const active: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) active[kind] = (active[kind] ?? 0) + 1;
  // readdirSync opens the directory itself while it lists it: that entry is not the process's.
  return { fds: readdirSync("/proc/self/fd").length - 1, active };
}

/** The number of active resources, all kinds together. */
export function activeCount(resources: HeldResources): number {
  return Object.values(resources.active).reduce((sum, count) => sum + count, 0);
}

/**
 * RSS and the heap after a full GC (so that the heap figure is what is still reachable); of
 * the heap, V8's compiled code (`compiledCodeBytes`), which grows as functions are compiled
 * and optimised and is no object the bridge keeps; and, to tell where RSS goes, the heap V8
 * has reserved and the anonymous part of RSS (the rest of which is native memory: SQLite's
 * page cache, buffers).
 */
export async function memoryNow(): Promise<{
  rssBytes: number;
  heapBytes: number;
  codeBytes: number;
  heapTotalBytes: number;
  anonBytes: number;
}> {
  await collectGarbage();
  const usage = process.memoryUsage();
  return {
    rssBytes: usage.rss,
    heapBytes: usage.heapUsed,
    codeBytes: compiledCodeBytes(),
    heapTotalBytes: usage.heapTotal,
    anonBytes: statusKiB("RssAnon") * 1024,
  };
}

/**
 * V8's compiled code, machine code and bytecode alike: a function is compiled to bytecode
 * when first called (again after V8 flushed bytecode unused for a while), then optimised by
 * tiers as it gets hot, and re-optimised after a deoptimisation, for the whole of a run.
 */
function compiledCodeBytes(): number {
  const code = getHeapCodeStatistics();
  return code.code_and_metadata_size + code.bytecode_and_metadata_size;
}

/** A `kB` field of `/proc/self/status`; 0 where /proc does not say. */
function statusKiB(field: string): number {
  const status = readFileSync("/proc/self/status", "utf8");
  const kib = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1];
  return kib === undefined ? 0 : Number(kib);
}

/** The process's peak RSS so far (`VmHWM`), in bytes. */
export function peakRssBytes(): number {
  return statusKiB("VmHWM") * 1024;
}

/** What `after` holds beyond `before`, kind by kind (only the kinds that grew). */
export function grownKinds(before: HeldResources, after: HeldResources): Record<string, number> {
  const grown: Record<string, number> = {};
  for (const [kind, count] of Object.entries(after.active)) {
    const more = count - (before.active[kind] ?? 0);
    if (more > 0) grown[kind] = more;
  }
  return grown;
}
