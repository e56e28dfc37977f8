/**
 * What a turn's actions (its changes, undo, fork) need from the chat, handed down by context
 * beside the session's actions: the files each turn changed, which inputs may be undone or
 * forked from, and the calls that open the review panel and make a fork.
 */
import type { Message } from "opencode-bridge/client";
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { TurnChanges } from "./turn-changes.js";

export interface TurnReview {
  turnChanges: TurnChanges;
  /** The conversation's messages shown (an undo puts back what the later ones changed too). */
  messages: readonly Message[];
  /** The inputs an undo or a fork is offered for (undoable-inputs.ts). */
  undoable: ReadonlySet<string>;
  /** Whether the session can tell its changes (`capabilities.changes`). */
  canReview: boolean;
  /** Whether the session can be forked (`capabilities.fork`). */
  canFork: boolean;
  /** Opens the review panel on one turn's changes (or the whole session's). */
  openChanges(turnId?: string): void;
  /** A new session with this one's conversation before `inputId`, opened once made. */
  fork(inputId: string): Promise<void>;
}

export const TurnReviewContext = createContext<TurnReview | undefined>(undefined);

/** The turn actions' context; undefined outside a session (a subagent's conversation). */
export function useTurnReview(): TurnReview | undefined {
  return useContext(TurnReviewContext);
}
