/**
 * Which tool call each open ask is about, and the calls whose ask was refused (and how):
 * 1.18's `/api` fails a refused call as "interrupted", and the serve backend names the
 * refusal instead. Entries go when they can no longer matter (the ask answered, the call
 * settled, the turn over), so a long session keeps only what is open.
 */
import type { ToolErrorKind } from "../../events/build.js";

interface AskCall {
  callId: string;
  turnId: string | undefined;
}

interface Refusal {
  kind: ToolErrorKind;
  turnId: string | undefined;
}

export class AskCalls {
  readonly #asks = new Map<string, AskCall>();
  readonly #refused = new Map<string, Refusal>();

  /** The ask `requestId`, of the turn `turnId`, is about the call `callId`. */
  asked(requestId: string, callId: string, turnId: string | undefined): void {
    this.#asks.set(requestId, { callId, turnId });
  }

  /**
   * The ask is being refused (`kind`): its call's failure will be that. Returns an undo for
   * when the refusal could not be sent.
   */
  refusing(requestId: string, kind: ToolErrorKind): () => void {
    const ask = this.#asks.get(requestId);
    if (ask === undefined) return () => {};
    this.#refused.set(ask.callId, { kind, turnId: ask.turnId });
    return () => this.#refused.delete(ask.callId);
  }

  /** The ask was answered (either way): what it is about is no longer needed. */
  answered(requestId: string): void {
    this.#asks.delete(requestId);
  }

  /** The call settled: how it was refused, if it was, for its failure; forgotten after. */
  settled(callId: string): ToolErrorKind | undefined {
    const refusal = this.#refused.get(callId);
    this.#refused.delete(callId);
    return refusal?.kind;
  }

  /** The turn is over: its asks and refusals can no longer matter. */
  turnEnded(turnId: string | undefined): void {
    if (turnId === undefined) return;
    for (const [requestId, ask] of this.#asks) {
      if (ask.turnId === turnId) this.#asks.delete(requestId);
    }
    for (const [callId, refusal] of this.#refused) {
      if (refusal.turnId === turnId) this.#refused.delete(callId);
    }
  }

  /** How many entries are kept (for tests). */
  get size(): { asks: number; refusals: number } {
    return { asks: this.#asks.size, refusals: this.#refused.size };
  }
}
