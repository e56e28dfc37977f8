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

export interface ToolCall {
  tool: string;
  input: Record<string, unknown>;
}

/** Calls kept per turn: enough for the asks of a long turn, bounded for a runaway one. */
const KEPT = 200;

export class ToolCalls {
  /** The calls seen since the last turn ended, oldest first. */
  #calls = new Map<string, ToolCall>();
  /** The calls seen before it. */
  #earlier = new Map<string, ToolCall>();
  readonly #changes = new ChangeNotifier();

  called(callId: string, call: ToolCall): void {
    this.#calls.set(callId, { tool: call.tool, input: call.input });
    if (this.#calls.size > KEPT) {
      const oldest = this.#calls.keys().next().value;
      if (oldest !== undefined) this.#calls.delete(oldest);
    }
    this.#changes.notify();
  }

  /** A turn ended: the calls of the turn before it are forgotten. */
  turnEnded(): void {
    this.#earlier = this.#calls;
    this.#calls = new Map();
  }

  /** How many calls are kept (for tests). */
  get size(): number {
    return this.#calls.size + this.#earlier.size;
  }

  /** The call's input, waiting up to `timeoutMs` for it to be seen. */
  async input(callId: string, timeoutMs: number): Promise<ToolCall | undefined> {
    await this.#changes.until(() => this.#known(callId) !== undefined, {
      what: `waiting for tool call ${callId}`,
      timeoutMs,
    });
    return this.#known(callId);
  }

  #known(callId: string): ToolCall | undefined {
    return this.#calls.get(callId) ?? this.#earlier.get(callId);
  }
}
