/**
 * The mapping that OpenCode 1.18's `/api` (`session.next.*`) and 2.0's `session.*` events
 * share: a step's start, its text and reasoning parts, and the streaming of a tool call's
 * input. Both surfaces send these with the same meaning and the same values, under other
 * field names (`textID` / `ordinal`, `callID` / `id`): each normaliser renames its event's
 * fields into a `StepPart`, and the canonical event is made here, once.
 *
 * What the two surfaces send differently stays in their normalisers: how a step ends or fails
 * (1.18 derives the turn's end from it; 2.0's usage is optional), and a tool's call, progress
 * and outcome (2.0 does not repeat the tool's name, 1.18 sends output as content items and
 * reports an interrupt only in the error's message).
 */
import type { WireModelRef } from "../opencode-protocol/common.js";
import { assertNever } from "../util/assert-never.js";
import { type Normalized, type Origin, single } from "./build.js";
import type { ModelRef } from "./canonical.js";
import { addTurnText, type TurnState } from "./turn-state.js";

/** Where a text or reasoning part is: its step (assistant message) and its id within it. */
interface PartRef {
  stepId: string;
  /** The part's id within its step (1.18's `text-0`, 2.0's ordinal). */
  localId: string | number;
}

/** A part of a step, as both surfaces send it, in the surfaces' common terms. */
export type StepPart =
  | { type: "step.started"; stepId: string; agent: string; model: WireModelRef }
  | ({ type: "text.started" } & PartRef)
  | ({ type: "text.delta"; delta: string } & PartRef)
  | ({ type: "text.ended"; text: string } & PartRef)
  | ({ type: "reasoning.started" } & PartRef)
  | ({ type: "reasoning.delta"; delta: string } & PartRef)
  | ({ type: "reasoning.ended"; text: string } & PartRef)
  | { type: "tool.input.started"; stepId: string; callId: string; tool: string }
  | { type: "tool.input.delta"; callId: string; delta: string }
  | { type: "tool.input.ended"; callId: string; input: string };

/**
 * The canonical event of one step part, all of `origin`. Pure; the state changes only at a
 * text's end, which becomes the running turn's final text (a later step's replaces it).
 */
export function normalizeStepPart<State extends TurnState>(
  state: State,
  origin: Origin,
  part: StepPart,
): Normalized<State> {
  // `single`, not a closure made per call: this runs for every streamed delta.
  switch (part.type) {
    case "step.started":
      return single(state, origin, "step.started", {
        stepId: part.stepId,
        model: modelRefOf(part.model),
        agent: part.agent,
      });
    case "text.started":
    case "reasoning.started":
      return single(state, origin, part.type, { partId: partIdOf(part), stepId: part.stepId });
    case "text.delta":
    case "reasoning.delta":
      return single(state, origin, part.type, { partId: partIdOf(part), delta: part.delta });
    case "text.ended":
      return single(addTurnText(state, part.stepId, part.text), origin, "text.ended", {
        partId: partIdOf(part),
        stepId: part.stepId,
        text: part.text,
      });
    case "reasoning.ended":
      return single(state, origin, "reasoning.ended", {
        partId: partIdOf(part),
        stepId: part.stepId,
        text: part.text,
      });
    case "tool.input.started":
      return single(state, origin, "tool.input.started", {
        callId: part.callId,
        tool: part.tool,
        stepId: part.stepId,
      });
    case "tool.input.delta":
      return single(state, origin, "tool.input.delta", { callId: part.callId, delta: part.delta });
    case "tool.input.ended":
      return single(state, origin, "tool.input.ended", { callId: part.callId, input: part.input });
    default:
      return assertNever(part, "step part");
  }
}

/** The wire's `{id, providerID}` model as the canonical `{providerID, modelID}`. */
export function modelRefOf(model: WireModelRef): ModelRef {
  return { providerID: model.providerID, modelID: model.id };
}

/** Part ids are per step (`text-0`, ordinal 0), so a canonical part id is scoped by its step. */
function partIdOf(part: PartRef): string {
  return `${part.stepId}/${part.localId}`;
}
