/**
 * The turns a session knows, by id, and which turn each input joined. Ended turns beyond the
 * latest few are forgotten, so that a long session's memory does not grow with its turns
 * (whoever holds a Turn can still read it: an ended turn reads its events back from the log).
 */
import type { CanonicalEvent } from "../events/canonical.js";
import { Turn, type TurnHistory } from "./turn.js";

/** How many ended turns a session still knows by id (default). */
export const KNOWN_ENDED_TURNS = 16;

export class SessionTurns {
  readonly #history: TurnHistory;
  readonly #knownEnded: number;
  readonly #turns = new Map<string, Turn>();
  /** The turn each input belongs to, once known. */
  readonly #inputs = new Map<string, Turn>();
  /** Ended turns still known, oldest first (at most `knownEnded`). */
  readonly #ended: Turn[] = [];

  constructor(history: TurnHistory, knownEnded = KNOWN_ENDED_TURNS) {
    this.#history = history;
    this.#knownEnded = knownEnded;
  }

  /** The turn `id`, made when first named. */
  byId(id: string): Turn {
    let turn = this.#turns.get(id);
    if (turn === undefined) {
      turn = new Turn(id, this.#history);
      this.#turns.set(id, turn);
    }
    return turn;
  }

  /** Whether the turn `id` is known and has ended (a forgotten turn is not known). */
  hasEnded(id: string): boolean {
    return this.#turns.get(id)?.state === "ended";
  }

  /** The turn `inputId` joined, once known. */
  ofInput(inputId: string): Turn | undefined {
    return this.#inputs.get(inputId);
  }

  /** Notes the turn an input joined (known before any event says so: a held or guessed one). */
  setInput(inputId: string, turn: Turn): void {
    this.#inputs.set(inputId, turn);
  }

  /** Hands an event to the turn it names, noting the turn an admitted or delivered input joined. */
  deliver(event: CanonicalEvent): void {
    if (event.turnId === undefined) return;
    const turn = this.byId(event.turnId);
    if (event.type === "input.admitted" || event.type === "input.delivered") {
      this.#inputs.set(event.data.inputId, turn);
    }
    if (turn.state === "ended") return;
    turn.push(event);
    if (event.type === "turn.ended") this.#forgetOldEnded(turn);
  }

  #forgetOldEnded(ended: Turn): void {
    this.#ended.push(ended);
    for (const old of this.#ended.splice(0, this.#ended.length - this.#knownEnded)) {
      this.#turns.delete(old.id);
      for (const [inputId, of] of this.#inputs) if (of === old) this.#inputs.delete(inputId);
    }
  }
}
