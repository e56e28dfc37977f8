/**
 * The inputs of the tool calls a session has seen, by call id, for asks that need them; a
 * reader may wait (bounded) for a call it has not seen yet.
 */
import { ChangeNotifier } from "../util/change-notifier.js";

export interface ToolCall {
  tool: string;
  input: Record<string, unknown>;
}

/** Calls kept: enough for the asks of a long turn, bounded for a long session. */
const KEPT = 200;

export class ToolCalls {
  readonly #calls = new Map<string, ToolCall>();
  readonly #changes = new ChangeNotifier();

  called(callId: string, call: ToolCall): void {
    this.#calls.set(callId, { tool: call.tool, input: call.input });
    if (this.#calls.size > KEPT) {
      const oldest = this.#calls.keys().next().value;
      if (oldest !== undefined) this.#calls.delete(oldest);
    }
    this.#changes.notify();
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
