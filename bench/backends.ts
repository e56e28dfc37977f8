/**
 * (d) The same short tool turn on each backend (`serve`, `serve-legacy`, `subprocess`), one
 * bridge at a time, each with its own demo model: a fresh session per run, timed from
 * `session.send` to `turn.done()` (creating the session is not timed). `serve` is the baseline
 * the other backends' medians are divided by, measured in the same process. Each run also
 * notes when the turn's milestones were handed out (admitted, started, each step's start and
 * end, ended), so that docs/performance.md can say where the time goes on each backend.
 */
import { BACKEND_KINDS, type BackendKind } from "../src/backends/backend.js";
import type { Bridge } from "../src/runtime/bridge/bridge.js";
import { timedBridgeTurn } from "./short-turn.js";
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
  /** Where each run's time went (ms), one per measured run. */
  phases: TurnPhases[];
}

/** The stretches of one turn, as the bridge handed out its milestones (ms). */
export interface TurnPhases {
  /** `session.send` → `input.admitted`. */
  admit: number;
  /** `input.admitted` → the first `step.started` (the prompt reaches the model's loop). */
  toFirstStep: number;
  /** From a `step.ended` to the next `step.started`, summed (between the tool call and the reply). */
  betweenSteps: number;
  /** The steps themselves (model and tool), summed. */
  inSteps: number;
  /** The last `step.ended` → `turn.ended`. */
  toEnd: number;
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
      const phases: TurnPhases[] = [];
      for (let run = 0; run < options.warmups + options.runs; run++) {
        const timed = await phasedTurn(bridge, BACKEND_TURN, options.timeoutMs);
        if (run < options.warmups) continue;
        samples.push(timed.ms);
        phases.push(timed.phases);
      }
      return { samples, phases };
    });
    note(`(d) ${backend}: ${options.runs} runs`);
    results.push({ backend, ms: ms.samples, phases: ms.phases });
  }
  return results;
}

/** One turn in a fresh session: send → done, and when its milestones were handed out. */
async function phasedTurn(
  bridge: Bridge,
  text: string,
  timeoutMs: number,
): Promise<{ ms: number; phases: TurnPhases }> {
  const at: { type: string; ms: number }[] = [];
  const ms = await timedBridgeTurn(bridge, text, {
    timeoutMs,
    title: "bench backends",
    onEvent: (event, since) => at.push({ type: event.type, ms: since }),
  });
  return { ms, phases: phasesOf(at, ms) };
}

function phasesOf(at: readonly { type: string; ms: number }[], total: number): TurnPhases {
  const first = (type: string) => at.find((event) => event.type === type)?.ms ?? Number.NaN;
  const admitted = first("input.admitted");
  const starts = at.filter((event) => event.type === "step.started").map((event) => event.ms);
  const ends = at.filter((event) => event.type === "step.ended").map((event) => event.ms);
  let inSteps = 0;
  let betweenSteps = 0;
  for (const [index, start] of starts.entries()) {
    inSteps += (ends[index] ?? start) - start;
    const next = starts[index + 1];
    if (next !== undefined) betweenSteps += next - (ends[index] ?? next);
  }
  const ended = at.findLast((event) => event.type === "turn.ended")?.ms ?? total;
  return {
    admit: admitted,
    toFirstStep: (starts[0] ?? Number.NaN) - admitted,
    betweenSteps,
    inSteps,
    toEnd: ended - (ends.at(-1) ?? Number.NaN),
  };
}
