/**
 * The processes of a scenario run alongside the others (the soak's bridge child and model):
 * they and what they start are not the other scenarios' to count as leaked, nor to kill.
 * The runner starts the soak first but does not wait for its processes to be up, so a
 * scenario's "already running before me" snapshot can miss them: hence this registry.
 */
import type { SeenProcess } from "../../../test/support/descendants.js";

const alongside = new Set<number>();

/** Marks `pid` (and, for the leak watches, everything it starts) as run alongside. */
export function markAlongside(pid: number): void {
  alongside.add(pid);
}

/** `seen` without the processes of a scenario run alongside: the marked ones and their subtrees. */
export function withoutAlongside(seen: readonly SeenProcess[]): SeenProcess[] {
  const byPid = new Map(seen.map((one) => [one.pid, one]));
  const fromAlongside = (one: SeenProcess): boolean => {
    for (let at: SeenProcess | undefined = one; at !== undefined; ) {
      if (alongside.has(at.pid)) return true;
      at = at.parent === undefined ? undefined : byPid.get(at.parent);
    }
    return false;
  };
  return seen.filter((one) => !fromAlongside(one));
}
