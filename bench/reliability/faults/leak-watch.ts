/**
 * The processes a scenario started (`opencode` servers, their keepers, the tools they ran),
 * seen as descendants of this process while it runs, and those still alive at its end.
 */

import { sleep } from "../../../src/util/abort.js";
import { DescendantWatch, type SeenProcess } from "../../../test/support/descendants.js";
import { withoutAlongside } from "../processes/alongside.js";

/** How long processes being stopped get to exit before they count as leaked. */
const EXIT_GRACE_MS = 5_000;
const POLL_MS = 100;

export interface LeakWatch {
  /** Every process seen, `opencode` ones by count. */
  started(): { all: number; opencode: number };
  /** Those still running once the scenario closed what it started (after a grace). */
  leaked(): Promise<SeenProcess[]>;
  /** Stops watching and SIGKILLs anything left, so that a failed scenario leaves nothing. */
  stop(): void;
}

export function watchLeaks(): LeakWatch {
  // Already running before: not the scenario's.
  const before = new DescendantWatch(process.pid);
  before.stop();
  const preexisting = new Set(before.running().map((seen) => seen.pid));
  const watch = new DescendantWatch(process.pid);
  const ours = (): SeenProcess[] =>
    withoutAlongside(watch.seen).filter((seen) => !preexisting.has(seen.pid));
  const running = (): SeenProcess[] => {
    const alive = new Set(watch.running().map((seen) => seen.pid));
    return ours().filter((seen) => alive.has(seen.pid));
  };
  return {
    started: () => ({
      all: ours().length,
      opencode: ours().filter((seen) => /opencode/.test(seen.command)).length,
    }),
    async leaked() {
      watch.poll();
      const until = Date.now() + EXIT_GRACE_MS;
      while (running().length > 0 && Date.now() < until) await sleep(POLL_MS);
      return running();
    },
    stop() {
      watch.stop();
      for (const { pid } of running()) {
        for (const target of [-pid, pid]) {
          try {
            process.kill(target, "SIGKILL");
          } catch {
            // gone, or not a group leader
          }
        }
      }
    },
  };
}
