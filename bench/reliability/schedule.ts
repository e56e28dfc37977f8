/**
 * The order a run takes: `alongside` scenarios start first and run while the others run one
 * after the other; `last` ones wait for all of them. The rows come back in the suite's order
 * whatever the order they ended in.
 */
import type { Schedule, SuiteEntry } from "./scenario.js";
import { isPlanned } from "./scenario.js";

export function scheduleOf(entry: SuiteEntry): Schedule {
  return isPlanned(entry) ? "in-turn" : (entry.schedule ?? "in-turn");
}

/**
 * Runs `entries` by their schedule with `run`, and resolves with the results in the order of
 * `entries`. A `run` must not throw (the runner turns a throw into a failed row).
 */
export async function runScheduled<T>(
  entries: readonly SuiteEntry[],
  run: (entry: SuiteEntry) => Promise<T>,
): Promise<T[]> {
  const results = new Map<SuiteEntry, Promise<T>>();
  for (const entry of entries) {
    if (scheduleOf(entry) === "alongside") results.set(entry, run(entry));
  }
  for (const entry of entries) {
    if (scheduleOf(entry) !== "in-turn") continue;
    const result = run(entry);
    results.set(entry, result);
    await result;
  }
  await Promise.all(results.values());
  for (const entry of entries) {
    if (scheduleOf(entry) !== "last") continue;
    const result = run(entry);
    results.set(entry, result);
    await result;
  }
  return Promise.all(
    entries.map((entry) => {
      const result = results.get(entry);
      if (result === undefined) throw new Error(`scenario ${entry.name} was not scheduled`);
      return result;
    }),
  );
}
