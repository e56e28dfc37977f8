/**
 * The turns a session knows, by id, and which turn each input joined. Ended turns beyond the
 * latest few are forgotten, so that a long session's memory does not grow with its turns
 * (whoever holds a Turn can still read it: an ended turn reads its events back from the log).
 *
 * An input can be promised one turn (its admission names it, or `send` guessed it) and then go
 * into another: 1.18.33's runner delivers a steer admitted while no turn ran together with the
 * queued input whose turn it starts, in that input's turn. The promised turn never starts; it is noted as
 * joined to the turn that took the input, and ends when that one ends (`takeJoinedEnds`).
 */
import type { CanonicalEvent, DurableEventData } from "../../events/canonical.js";
import { Turn, type TurnHistory } from "./turn.js";

/** A turn promised to an input that another turn took, and that turn's end, which it shares. */
export interface JoinedEnd {
  turn: Turn;
  /** The input the promised turn was for. */
  inputId: string;
  /** The turn that took the input, and its `turn.ended` data. */
  hostId: string;
  ended: DurableEventData["turn.ended"];
}

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
  /** By the id of a turn not ended yet: the turns promised to inputs it took, with the input. */
  readonly #joined = new Map<string, { turn: Turn; inputId: string }[]>();
  /** Promised turns whose host turn has ended, to be ended the same way. */
  #joinedEnds: JoinedEnd[] = [];

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

  /** What the turn `id` has said so far (a turn the runtime fails keeps it as its text). */
  partialText(id: string): string {
    return this.byId(id).partialText();
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
      this.#noteJoined(event.data.inputId, turn);
      this.#inputs.set(event.data.inputId, turn);
    }
    if (turn.state === "ended") return;
    turn.push(event);
    if (event.type === "turn.ended") {
      for (const joined of this.#joined.get(turn.id) ?? []) {
        this.#joinedEnds.push({ ...joined, hostId: turn.id, ended: event.data });
      }
      this.#joined.delete(turn.id);
      this.#forgetOldEnded(turn);
    }
  }

  /**
   * The promised turns whose host turn has ended and that have not ended themselves: the
   * session ends each the same way (taken once).
   */
  takeJoinedEnds(): JoinedEnd[] {
    const ends = this.#joinedEnds.filter((joined) => joined.turn.state !== "ended");
    this.#joinedEnds = [];
    return ends;
  }

  /**
   * `inputId` goes into `turn`: if it was promised another turn, one that never started, that
   * turn never will (its input is taken), so it ends with `turn`.
   */
  #noteJoined(inputId: string, turn: Turn): void {
    const promised = this.#inputs.get(inputId);
    if (promised === undefined || promised === turn || promised.state !== "pending") return;
    if (turn.state === "ended") return; // an ended turn takes no input (its late events are dropped)
    const joined = this.#joined.get(turn.id) ?? [];
    if (!joined.some((entry) => entry.turn === promised)) joined.push({ turn: promised, inputId });
    this.#joined.set(turn.id, joined);
  }

  #forgetOldEnded(ended: Turn): void {
    this.#ended.push(ended);
    for (const old of this.#ended.splice(0, this.#ended.length - this.#knownEnded)) {
      this.#turns.delete(old.id);
      for (const [inputId, of] of this.#inputs) if (of === old) this.#inputs.delete(inputId);
    }
  }
}
