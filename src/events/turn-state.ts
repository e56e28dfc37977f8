/**
 * The part of a normaliser's state that follows turns: which inputs wait to be delivered,
 * which turn runs, what it has used and said. Immutable: every change returns a new state.
 * The helpers are generic over the normaliser's own state (which extends this one), so each
 * returns the state it was given, with its other fields kept.
 */

import type { Origin } from "./build.js";
import type { Outcome, Usage } from "./canonical.js";
import { addUsage } from "./usage-tally.js";

export interface RunningTurn {
  id: string;
  usage: Usage | undefined;
  /** Texts of the latest step that produced text: the turn's final text so far. */
  finalText: string[];
  /** Step whose texts `finalText` holds. */
  finalTextStep: string | undefined;
  /** The user asked to interrupt (or the server said a tool was interrupted). */
  interrupting: boolean;
}

export interface TurnState {
  turn: RunningTurn | undefined;
  /** Inputs admitted and not yet delivered, with how they were sent. */
  pending: ReadonlyMap<string, "steer" | "queue">;
}

export const initialTurnState: TurnState = { turn: undefined, pending: new Map() };

/** Turn ids derive from the input that started the turn, so they survive a resume. */
export function turnIdFor(inputId: string): string {
  return `turn_${inputId}`;
}

/** The input that started the turn `turnId` (the inverse of `turnIdFor`). */
export function inputIdOfTurn(turnId: string): string {
  return turnId.startsWith("turn_") ? turnId.slice("turn_".length) : turnId;
}

/**
 * An admission belongs to the turn it will join or start: a steer into the running turn joins
 * it; anything else starts the turn named after the input (see docs/events.md).
 */
export function admissionOrigin(
  origin: Origin,
  state: TurnState,
  inputId: string,
  delivery: "steer" | "queue",
): Origin {
  const running = state.turn?.id;
  return {
    ...origin,
    turnId: delivery === "steer" && running !== undefined ? running : turnIdFor(inputId),
  };
}

export function withPending<S extends TurnState>(
  state: S,
  inputId: string,
  delivery: "steer" | "queue",
): S {
  const pending = new Map(state.pending);
  pending.set(inputId, delivery);
  return { ...state, pending };
}

export function withoutPending<S extends TurnState>(state: S, inputId: string): S {
  if (!state.pending.has(inputId)) return state;
  const pending = new Map(state.pending);
  pending.delete(inputId);
  return { ...state, pending };
}

export function startTurn<S extends TurnState>(state: S, inputId: string): S {
  return {
    ...state,
    turn: {
      id: turnIdFor(inputId),
      usage: undefined,
      finalText: [],
      finalTextStep: undefined,
      interrupting: false,
    },
  };
}

export function updateTurn<S extends TurnState>(state: S, change: Partial<RunningTurn>): S {
  return state.turn === undefined ? state : { ...state, turn: { ...state.turn, ...change } };
}

export function addTurnUsage<S extends TurnState>(state: S, usage: Usage | undefined): S {
  return state.turn === undefined
    ? state
    : updateTurn(state, { usage: addUsage(state.turn.usage, usage) });
}

/** Records a finished text of `stepId`: a later step's text replaces an earlier step's. */
export function addTurnText<S extends TurnState>(
  state: S,
  stepId: string | undefined,
  text: string,
): S {
  const turn = state.turn;
  if (turn === undefined) return state;
  const sameStep = turn.finalTextStep === stepId;
  return updateTurn(state, {
    finalText: sameStep ? [...turn.finalText, text] : [text],
    finalTextStep: stepId,
  });
}

/** The data of the `turn.ended` that closes the running turn. */
export function endingOf(
  turn: RunningTurn,
  outcome: Outcome,
  extra: { reason?: string; error?: { kind: string; message: string } } = {},
) {
  return {
    outcome,
    ...extra,
    ...(turn.usage === undefined ? {} : { usage: turn.usage }),
    text: turn.finalText.join(""),
  };
}

/** True if an input sent with `steer` still waits: the running turn goes on to deliver it. */
export function hasPendingSteer(state: TurnState): boolean {
  return [...state.pending.values()].includes("steer");
}
