/**
 * (c) A short turn through the bridge (`session.send` → `turn.done()`) against the same turn
 * made with raw `fetch` (prompt, then the durable stream until the turn's last step ends). A
 * fresh session per run on both sides; creating it is not timed.
 */
import type { CanonicalEvent } from "../src/events/canonical.js";
import type { Bridge } from "../src/runtime/bridge/bridge.js";
import { RawApi } from "./raw-api.js";
import { note, withTimeout } from "./stats.js";

export interface ShortTurnCase {
  name: string;
  text: string;
}

export const SHORT_TURNS: readonly ShortTurnCase[] = [
  { name: "reply", text: "[[reply hi]]" },
  { name: "tool", text: '[[tool bash {"command":"echo hi"}]]' },
];

export interface ShortTurnOptions {
  runs: number;
  /** Unmeasured runs of each side first. */
  warmups: number;
  timeoutMs: number;
}

export interface ShortTurnResult {
  name: string;
  bridgeMs: number[];
  rawMs: number[];
}

export async function benchShortTurns(
  bridge: Bridge,
  directory: string,
  options: ShortTurnOptions,
): Promise<ShortTurnResult[]> {
  const raw = new RawApi({ url: bridge.server.url, password: bridge.server.password, directory });
  const results: ShortTurnResult[] = [];
  for (const shortTurn of SHORT_TURNS) {
    const result: ShortTurnResult = { name: shortTurn.name, bridgeMs: [], rawMs: [] };
    for (let run = 0; run < options.warmups + options.runs; run++) {
      const measured = run >= options.warmups;
      // Alternate which side goes first, so that neither always follows the other's cleanup.
      const sides = run % 2 === 0 ? (["bridge", "raw"] as const) : (["raw", "bridge"] as const);
      for (const side of sides) {
        const ms =
          side === "bridge"
            ? await viaBridge(bridge, shortTurn.text, options.timeoutMs)
            : await viaRaw(raw, bridge, shortTurn.text, options.timeoutMs);
        if (measured) (side === "bridge" ? result.bridgeMs : result.rawMs).push(ms);
      }
    }
    note(`(c) ${shortTurn.name}: ${options.runs} runs each side`);
    results.push(result);
  }
  return results;
}

/** One turn on a fresh session, send → done in ms; throws unless it completed. */
function viaBridge(bridge: Bridge, text: string, timeoutMs: number): Promise<number> {
  return timedBridgeTurn(bridge, text, { timeoutMs, title: "bench short turn" });
}

/**
 * One turn on a fresh session (closed after): send → done in ms; throws unless it completed.
 * With `onEvent`, the turn's events are read as they are handed out, each with the time since
 * the send (ms); without it only the turn's end is awaited.
 */
export async function timedBridgeTurn(
  bridge: Bridge,
  text: string,
  options: {
    timeoutMs: number;
    title: string;
    onEvent?: (event: CanonicalEvent, ms: number) => void;
  },
): Promise<number> {
  const { timeoutMs, onEvent } = options;
  const session = await withTimeout(
    bridge.createSession({ title: options.title }),
    timeoutMs,
    "creating a session",
  );
  try {
    const signal = AbortSignal.timeout(timeoutMs);
    const started = performance.now();
    const turn = await session.send(text, { delivery: "queue", signal });
    const reading =
      onEvent === undefined
        ? turn.done()
        : (async () => {
            for await (const event of turn.events()) onEvent(event, performance.now() - started);
            return turn.done();
          })();
    const result = await withTimeout(reading, timeoutMs, `turn ${turn.id}`);
    const ms = performance.now() - started;
    if (result.outcome !== "completed") {
      throw new Error(`bridge turn ended ${result.outcome}: ${result.error?.message ?? ""}`);
    }
    return ms;
  } finally {
    await session.close();
  }
}

async function viaRaw(
  raw: RawApi,
  bridge: Bridge,
  text: string,
  timeoutMs: number,
): Promise<number> {
  const signal = AbortSignal.timeout(timeoutMs);
  const sessionId = await raw.createSession(bridge.defaultModel, signal);
  const started = performance.now();
  const admittedSeq = await raw.prompt(sessionId, text, signal);
  await raw.waitForTurnEnd(sessionId, admittedSeq - 1, signal);
  return performance.now() - started;
}
