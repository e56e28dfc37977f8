/**
 * The `/api` normaliser's state rebuilt from the canonical events it had produced, so that an
 * adopted session resumes the durable stream from its cursor instead of from the start: which
 * inputs wait, which turn runs, and what that turn has used and said so far.
 */
import type { CanonicalEvent } from "./canonical.js";
import { type ApiNormalizerState, initialApiState } from "./normalize-api.js";
import {
  addTurnText,
  addTurnUsage,
  startTurn,
  type TurnState,
  updateTurn,
  withoutPending,
  withPending,
} from "./turn-state.js";

const STOPPING_KINDS = ["interrupted", "permission-rejected", "question-rejected"];
const RUNTIME_ENDS = ["stalled", "server-exited"];

export function apiStateFromEvents(
  sessionId: string,
  events: readonly CanonicalEvent[],
): ApiNormalizerState {
  let state: TurnState = initialApiState(sessionId);
  for (const event of events) {
    switch (event.type) {
      case "input.admitted":
        state = withPending(state, event.data.inputId, event.data.delivery);
        break;
      case "input.delivered":
        state = withoutPending(state, event.data.inputId);
        break;
      case "turn.started":
        state = startTurn(state, event.data.inputId ?? event.turnId ?? event.id);
        if (event.turnId !== undefined && state.turn !== undefined) {
          state = updateTurn(state, { id: event.turnId });
        }
        break;
      case "step.ended":
        state = addTurnUsage(state, event.data.usage);
        break;
      case "text.ended":
        state = addTurnText(state, event.data.stepId, event.data.text);
        break;
      case "tool.failed":
        // Stored kinds: the serve backend names a refused call's "interrupted" failure so.
        if (STOPPING_KINDS.includes(event.data.error.kind)) {
          state = updateTurn(state, { interrupting: true });
        }
        break;
      case "turn.ended":
        // The end of another turn than the running one (one whose input the running turn took,
        // a held input taken back) leaves it running.
        if (state.turn !== undefined && event.turnId !== state.turn.id) break;
        // The runtime's own ends (a stall, a crash) also dropped what waited upstream.
        state = RUNTIME_ENDS.includes(event.data.reason ?? "")
          ? { ...state, turn: undefined, pending: new Map() }
          : { ...state, turn: undefined };
        break;
      // The rest say nothing about a turn's progress or what waits upstream.
      default:
        break;
    }
  }
  return { ...state, sessionId };
}
