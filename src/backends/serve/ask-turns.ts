/**
 * Asks come on the live stream, the tool calls they are about (and the turn those run in) on
 * the durable one, and the two connections are not ordered against each other: under load the
 * durable stream can lag a whole step, so an ask normalised when it arrives names no turn (or
 * the turn before), and whoever reads its turn waits for it forever. This gives each ask the
 * turn of its tool call: an ask whose call has not been seen yet is held until the call's
 * `tool.called`, and passed on right after it, for a bounded time.
 */
import type { CanonicalEvent } from "../../events/canonical.js";
import type { Logger } from "../../util/logger.js";
import { TwoTurnMap } from "../../util/two-turn-map.js";

/** How long an ask waits for its tool call on the durable stream before going on without it. */
export const ASK_CALL_WAIT_MS = 10_000;

/**
 * Calls whose turn is remembered, per turn: enough for the asks of a long turn. Only the calls
 * of the running turn and of the turn before are kept (an ask can come after its call's turn
 * ended on the durable stream when the live stream lags, not turns later): a long session's
 * memory stays that of two turns, reached at once, instead of filling a bound over hours.
 */
const KEPT_CALLS = 200;

type Ask = Extract<CanonicalEvent, { type: "permission.asked" | "question.asked" }>;
type Reply = Extract<
  CanonicalEvent,
  { type: "permission.replied" | "question.replied" | "question.rejected" }
>;

interface Held {
  /** The ask, then any reply to it that came before its call. */
  events: CanonicalEvent[];
  timer: NodeJS.Timeout;
}

export interface AskTurnsOptions {
  /** The turn running now, for an ask whose call never showed up. */
  currentTurn: () => string | undefined;
  logger: Logger;
  boundMs?: number;
}

export class AskTurns {
  readonly #out: (event: CanonicalEvent) => void;
  readonly #currentTurn: () => string | undefined;
  readonly #logger: Logger;
  readonly #boundMs: number;
  /** The turn of each tool call of the running turn and the turn before, by call id. */
  readonly #callTurns = new TwoTurnMap<string, string | undefined>(KEPT_CALLS);
  /** Asks waiting for their call, by call id; and the call each held request waits for. */
  readonly #held = new Map<string, Held>();
  readonly #heldRequests = new Map<string, string>();
  /** After `flush()`: nothing is held any more. */
  #closed = false;

  constructor(out: (event: CanonicalEvent) => void, options: AskTurnsOptions) {
    this.#out = out;
    this.#currentTurn = options.currentTurn;
    this.#logger = options.logger;
    this.#boundMs = options.boundMs ?? ASK_CALL_WAIT_MS;
  }

  push(event: CanonicalEvent): void {
    if (event.type === "tool.called") {
      this.#callTurns.set(event.data.callId, event.turnId);
      this.#out(event);
      this.#release(event.data.callId, event.turnId);
    } else if (event.type === "permission.asked" || event.type === "question.asked") {
      this.#ask(event);
    } else if (
      event.type === "permission.replied" ||
      event.type === "question.replied" ||
      event.type === "question.rejected"
    ) {
      this.#reply(event);
    } else {
      if (event.type === "turn.ended") this.#callTurns.turnEnded();
      this.#out(event);
    }
  }

  /** Lets every held ask go in the turn running now, and holds nothing any more (closing). */
  flush(): void {
    this.#closed = true;
    for (const callId of [...this.#held.keys()]) this.#release(callId, this.#currentTurn());
  }

  #ask(event: Ask): void {
    const callId = event.data.callId;
    if (callId === undefined || this.#closed) {
      this.#out(event);
      return;
    }
    if (this.#callTurns.has(callId)) {
      this.#out(inTurn(event, this.#callTurns.get(callId)));
      return;
    }
    const held = this.#held.get(callId) ?? this.#hold(callId, event);
    if (!held.events.includes(event)) held.events.push(event);
    this.#heldRequests.set(event.data.requestId, callId);
  }

  #hold(callId: string, ask: Ask): Held {
    const timer = setTimeout(() => {
      this.#logger.warn("an ask's tool call did not show on the durable stream; passing it on", {
        sessionId: ask.sessionId,
        requestId: ask.data.requestId,
        callId,
      });
      this.#release(callId, this.#currentTurn());
    }, this.#boundMs);
    timer.unref();
    const held = { events: [ask], timer };
    this.#held.set(callId, held);
    return held;
  }

  /** A reply to a held ask (answered elsewhere, at once) must not overtake it. */
  #reply(event: Reply): void {
    const callId = this.#heldRequests.get(event.data.requestId);
    const held = callId === undefined ? undefined : this.#held.get(callId);
    if (held === undefined) this.#out(event);
    else held.events.push(event);
  }

  #release(callId: string, turnId: string | undefined): void {
    const held = this.#held.get(callId);
    if (held === undefined) return;
    clearTimeout(held.timer);
    this.#held.delete(callId);
    for (const event of held.events) {
      if (event.type === "permission.asked" || event.type === "question.asked") {
        this.#heldRequests.delete(event.data.requestId);
      }
      this.#out(inTurn(event, turnId));
    }
  }
}

/** The event as part of `turnId` (unchanged when no turn is known). */
function inTurn<T extends CanonicalEvent>(event: T, turnId: string | undefined): T {
  if (turnId === undefined || event.turnId === turnId) return event;
  return { ...event, turnId };
}
