/**
 * The inputs of the tool calls a session has seen, by call id, for asks that need them; a
 * reader may wait (bounded) for a call it has not seen yet.
 */
import { setTimeout as delay } from "node:timers/promises";

export interface ToolCall {
  tool: string;
  input: Record<string, unknown>;
}

/** Calls kept: enough for the asks of a long turn, bounded for a long session. */
const KEPT = 200;
const POLL_MS = 20;

export class ToolCalls {
  readonly #calls = new Map<string, ToolCall>();

  called(callId: string, call: ToolCall): void {
    this.#calls.set(callId, { tool: call.tool, input: call.input });
    if (this.#calls.size > KEPT) {
      const oldest = this.#calls.keys().next().value;
      if (oldest !== undefined) this.#calls.delete(oldest);
    }
  }

  /** The call's input, waiting up to `timeoutMs` for it to be seen. */
  async input(callId: string, timeoutMs: number): Promise<ToolCall | undefined> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const call = this.#calls.get(callId);
      if (call !== undefined || Date.now() >= until) return call;
      await delay(POLL_MS, undefined, { ref: false });
    }
  }
}
