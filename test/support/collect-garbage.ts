/**
 * A full garbage collection on demand, for tests and benches that count what is still
 * reachable. `--expose-gc` is turned on at run time, so nothing needs starting with it.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let gc: (() => void) | undefined;

/** Runs a full GC after the current job, when objects only a WeakRef saw are collectable. */
export async function collectGarbage(): Promise<void> {
  if (gc === undefined) {
    setFlagsFromString("--expose-gc");
    const exposed: unknown = runInNewContext("gc");
    if (typeof exposed !== "function") throw new Error("cannot expose the garbage collector");
    gc = () => exposed();
  }
  // A WeakRef's target stays alive until the job that made or read it ends.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
}

/** How many of `refs` still point at something after a full GC. */
export async function stillReachable(refs: readonly WeakRef<object>[]): Promise<number> {
  await collectGarbage();
  return refs.filter((ref) => ref.deref() !== undefined).length;
}
