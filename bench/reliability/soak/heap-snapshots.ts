/**
 * Opt-in heap snapshots of the soak's child, to tell what its heap grows by: set
 * `OCB_SOAK_HEAP_SNAPSHOTS` to a directory and `OCB_SOAK_HEAP_SNAPSHOT_MINUTES` to the minutes
 * since the child's start (`5,15,30`). Each is written after a full GC, named by its minute;
 * diff them with `bench/reliability/soak/diff-snapshots.ts`. Off unless both are set: a
 * snapshot stops the bridge's event loop for seconds and writes some 100 MiB.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeHeapSnapshot } from "node:v8";
import { collectGarbage } from "../../../test/support/collect-garbage.js";

export const HEAP_SNAPSHOTS_DIR_ENV = "OCB_SOAK_HEAP_SNAPSHOTS";
export const HEAP_SNAPSHOT_MINUTES_ENV = "OCB_SOAK_HEAP_SNAPSHOT_MINUTES";

/** Schedules the snapshots the environment asks for; returns what cancels those not yet due. */
export function scheduleHeapSnapshots(
  env: NodeJS.ProcessEnv,
  note: (line: string) => void,
): () => void {
  const dir = env[HEAP_SNAPSHOTS_DIR_ENV];
  const minutes = (env[HEAP_SNAPSHOT_MINUTES_ENV] ?? "")
    .split(",")
    .map((part) => Number(part.trim()))
    .filter((minute) => isMinute(minute));
  if (dir === undefined || dir === "" || minutes.length === 0) return () => {};
  mkdirSync(dir, { recursive: true });
  const timers = minutes.map((minute) =>
    setTimeout(
      () =>
        void snapshot(join(dir, `soak-${minute}min.heapsnapshot`), note).catch((error: unknown) =>
          note(`heap snapshot at ${minute} min failed: ${String(error)}`),
        ),
      minute * 60_000,
    ),
  );
  for (const timer of timers) timer.unref();
  return () => {
    for (const timer of timers) clearTimeout(timer);
  };
}

function isMinute(minute: number): boolean {
  return Number.isFinite(minute) && minute > 0;
}

async function snapshot(path: string, note: (line: string) => void): Promise<void> {
  await collectGarbage();
  const startedAt = Date.now();
  writeHeapSnapshot(path);
  note(`heap snapshot ${path} in ${Date.now() - startedAt} ms`);
}
