/**
 * Counts the timers created by given source files that are neither cleared nor fired yet.
 * An async hook sees exactly those, where a process-wide count
 * (`process.getActiveResourcesInfo()`) also sees vitest's own short-lived timers and flakes.
 */
import { createHook } from "node:async_hooks";
import { expect, vi } from "vitest";

export interface TimerTracker {
  /** Timers from the watched files that are still pending. */
  live(): number;
  /** Resolves once none is pending (destroy hooks arrive a moment after clearTimeout). */
  settled(): Promise<void>;
  /** Stops watching. */
  dispose(): void;
}

/** Starts watching timers whose creation stack matches `source`. */
export function trackTimers(source: RegExp): TimerTracker {
  const live = new Set<number>();
  const hook = createHook({
    init(asyncId, type) {
      if (type !== "Timeout") return;
      if (source.test(new Error().stack ?? "")) live.add(asyncId);
    },
    destroy(asyncId) {
      live.delete(asyncId);
    },
  }).enable();
  return {
    live: () => live.size,
    // A leaked timer in the callers' tests is far longer than this wait, so it would still be
    // live when this gives up.
    settled: () =>
      vi.waitFor(() => expect(live.size, "timers still live").toBe(0), {
        timeout: 2000,
        interval: 10,
      }),
    dispose: () => hook.disable(),
  };
}
