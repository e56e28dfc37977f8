/**
 * The inputs of the tool calls a session has seen, by call id, for asks that need them; a
 * reader may wait (bounded) for a call it has not seen yet.
 *
 * Only the calls of the running turn and of the turn before are kept (an ask is about a call
 * of its turn, and comes after that turn's end only when the live stream lags): a long
 * session keeps two turns' inputs, not its last 200 calls' (a bound a long session filled for
 * hours, and which a thousand sessions would each hold).
 */
import { ChangeNotifier } from "../util/change-notifier.js";
import { TwoTurnMap } from "../util/two-turn-map.js";

export interface ToolCall {
  tool: string;
  input: Record<string, unknown>;
}

/** Calls kept per turn: enough for the asks of a long turn, bounded for a runaway one. */
const KEPT = 200;

export class ToolCalls {
  readonly #calls = new TwoTurnMap<string, ToolCall>(KEPT);
  readonly #changes = new ChangeNotifier();

  called(callId: string, call: ToolCall): void {
    this.#calls.set(callId, { tool: call.tool, input: call.input });
    this.#changes.notify();
  }

  /** A turn ended: the calls of the turn before it are forgotten. */
  turnEnded(): void {
    this.#calls.turnEnded();
  }

  /** How many calls are kept (for tests). */
  get size(): number {
    return this.#calls.size;
  }

  /** The call's input, waiting up to `timeoutMs` for it to be seen. */
  async input(callId: string, timeoutMs: number): Promise<ToolCall | undefined> {
    await this.#changes.until(() => this.#calls.has(callId), {
      what: `waiting for tool call ${callId}`,
      timeoutMs,
    });
    return this.#calls.get(callId);
  }
}
