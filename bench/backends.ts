/**
 * (d) The same short tool turn on each backend (`serve`, `serve-legacy`, `subprocess`), one
 * bridge at a time, each with its own demo model: a fresh session per run, timed from
 * `session.send` to `turn.done()` (creating the session is not timed). `serve` is the baseline
 * the other backends' medians are divided by, measured in the same process.
 */
import { BACKEND_KINDS, type BackendKind } from "../src/backends/backend.js";
import type { Bridge } from "../src/runtime/bridge.js";
import { viaBridge } from "./short-turn.js";
import { note } from "./stats.js";

/** One bash call, then a reply: the short tool turn every backend runs. */
export const BACKEND_TURN =
  '[[tool bash {"command":"echo bench","description":"bench"}]] [[then done]]';

export interface BackendsOptions {
  runs: number;
  /** Unmeasured runs on each backend first. */
  warmups: number;
  timeoutMs: number;
}

export interface BackendResult {
  backend: BackendKind;
  /** Send → done, ms, one per measured run. */
  ms: number[];
}

/** Starts a bridge on `backend`, hands it to `use`, and stops it (and removes its dir) after. */
export type WithBridge = <T>(
  backend: BackendKind,
  use: (bridge: Bridge, directory: string) => Promise<T>,
) => Promise<T>;

export async function benchBackends(
  withBridge: WithBridge,
  options: BackendsOptions,
): Promise<BackendResult[]> {
  const results: BackendResult[] = [];
  for (const backend of BACKEND_KINDS) {
    const ms = await withBridge(backend, async (bridge) => {
      const samples: number[] = [];
      for (let run = 0; run < options.warmups + options.runs; run++) {
        const elapsed = await viaBridge(bridge, BACKEND_TURN, options.timeoutMs);
        if (run >= options.warmups) samples.push(elapsed);
      }
      return samples;
    });
    note(`(d) ${backend}: ${options.runs} runs`);
    results.push({ backend, ms });
  }
  return results;
}
