/**
 * OpenCode 1.18's `/api` events (`session.next.*`, durable and live) to canonical events.
 *
 * 1.18 has no end-of-turn event, so the turn rule (docs/events.md) is derived here:
 * - a turn starts when an input is delivered (`prompted`) while none runs;
 * - it ends `completed` at a `step.ended` whose finish is not `tool-calls`, unless an input
 *   sent with `steer` still waits (the server delivers it at that boundary, in the same turn);
 * - it ends `failed` at a `step.failed`, unless the step failed because of an interrupt;
 * - after an interrupt (asked for, or a tool that failed with "Tool execution interrupted"),
 *   the next `step.ended` or `step.failed` ends it `interrupted`; a rejected permission stops
 *   the run with no step end at all, so the next delivered input ends it too;
 * - an input admitted with `queue` is delivered only once the run before it is over: when one
 *   is delivered while a turn runs here, that turn's run stopped unseen (it died with a killed
 *   server, whose `prompted` was read after the restart), and it ends `failed` (`run-lost`).
 */
import type { ApiEvent } from "../opencode-protocol/api/events.js";
import type { Parsed } from "../opencode-protocol/common.js";
import { assertNever } from "../util/assert-never.js";
import {
  canonical,
  type Normalized,
  type Origin,
  originIn,
  serveNativeOf,
  single,
  textOfContent,
  usageOf,
} from "./build.js";
import type { CanonicalEvent, NativeOrigin } from "./canonical.js";
import { withoutInlinedTexts } from "./inlined-texts.js";
import { modelRefOf, normalizeStepPart } from "./step-parts.js";
import { boundedTodos } from "./todo-list.js";
import {
  addTurnUsage,
  admissionOrigin,
  endingOf,
  hasPendingSteer,
  initialTurnState,
  startTurn,
  type TurnState,
  updateTurn,
  withoutPending,
  withPending,
} from "./turn-state.js";

export interface ApiNormalizerState extends TurnState {
  readonly sessionId: string;
}

export function initialApiState(sessionId: string): ApiNormalizerState {
  return { ...initialTurnState, sessionId };
}

const INTERRUPTED_TOOL = /interrupted/i;

/** The user asked to interrupt: the step that ends next ends the turn `interrupted`. */
export function apiInterruptRequested(state: ApiNormalizerState): ApiNormalizerState {
  return updateTurn(state, { interrupting: true });
}

/** Normalises one parsed `/api` event. Pure: the same state and event give the same result. */
export function normalizeApiEvent(
  state: ApiNormalizerState,
  parsed: Parsed<ApiEvent>,
): Normalized<ApiNormalizerState> {
  // No closures made per event here (nor in step-parts.ts): this runs for every frame.
  const raw = parsed.event as { data?: { timestamp?: number } };
  const at = Number.isFinite(raw.data?.timestamp) ? (raw.data?.timestamp as number) : 0;
  const native = serveNativeOf(parsed.event);
  const origin = originIn(state, at, native);
  if (!parsed.known) {
    return single(state, origin, "native.unknown", {
      nativeType: parsed.event.type,
      raw: parsed.event,
    });
  }
  const event = parsed.event;
  switch (event.type) {
    case "session.next.prompt.admitted": {
      const { messageID, prompt, delivery } = event.data;
      return single(
        withPending(state, messageID, delivery),
        admissionOrigin(origin, state, messageID, delivery),
        "input.admitted",
        { inputId: messageID, text: withoutInlinedTexts(prompt.text), delivery },
      );
    }
    case "session.next.prompted":
      return prompted(state, event.data.messageID, at, native);
    case "session.next.step.started": {
      const { assistantMessageID: stepId, agent, model } = event.data;
      return normalizeStepPart(state, origin, { type: "step.started", stepId, agent, model });
    }
    case "session.next.step.ended":
      return stepEnded(state, event.data, at, native);
    case "session.next.step.failed":
      return stepFailed(state, event.data, origin);
    case "session.next.text.started":
      return normalizeStepPart(state, origin, {
        type: "text.started",
        stepId: event.data.assistantMessageID,
        localId: event.data.textID,
      });
    case "session.next.text.delta":
      return normalizeStepPart(state, origin, {
        type: "text.delta",
        stepId: event.data.assistantMessageID,
        localId: event.data.textID,
        delta: event.data.delta,
      });
    case "session.next.text.ended":
      return normalizeStepPart(state, origin, {
        type: "text.ended",
        stepId: event.data.assistantMessageID,
        localId: event.data.textID,
        text: event.data.text,
      });
    case "session.next.reasoning.started":
      return normalizeStepPart(state, origin, {
        type: "reasoning.started",
        stepId: event.data.assistantMessageID,
        localId: event.data.reasoningID,
      });
    case "session.next.reasoning.delta":
      return normalizeStepPart(state, origin, {
        type: "reasoning.delta",
        stepId: event.data.assistantMessageID,
        localId: event.data.reasoningID,
        delta: event.data.delta,
      });
    case "session.next.reasoning.ended":
      return normalizeStepPart(state, origin, {
        type: "reasoning.ended",
        stepId: event.data.assistantMessageID,
        localId: event.data.reasoningID,
        text: event.data.text,
      });
    case "session.next.tool.input.started":
      return normalizeStepPart(state, origin, {
        type: "tool.input.started",
        stepId: event.data.assistantMessageID,
        callId: event.data.callID,
        tool: event.data.name,
      });
    case "session.next.tool.input.delta":
      return normalizeStepPart(state, origin, {
        type: "tool.input.delta",
        callId: event.data.callID,
        delta: event.data.delta,
      });
    case "session.next.tool.input.ended":
      return normalizeStepPart(state, origin, {
        type: "tool.input.ended",
        callId: event.data.callID,
        input: event.data.text,
      });
    case "session.next.tool.called":
      return single(state, origin, "tool.called", {
        callId: event.data.callID,
        tool: event.data.tool,
        input: event.data.input,
        stepId: event.data.assistantMessageID,
      });
    case "session.next.tool.progress":
      return single(state, origin, "tool.progress", { callId: event.data.callID });
    case "session.next.tool.success":
      return single(state, origin, "tool.succeeded", {
        callId: event.data.callID,
        output: textOfContent(event.data.content),
      });
    case "session.next.tool.failed": {
      // 1.18 reports an interrupted tool only by this message; the turn ends with its step.
      const interrupted = INTERRUPTED_TOOL.test(event.data.error.message);
      const type = event.data.error.type;
      const error = {
        kind: interrupted ? "interrupted" : type === "unknown" ? "tool" : type,
        message: event.data.error.message,
      };
      const next = interrupted ? updateTurn(state, { interrupting: true }) : state;
      return single(next, origin, "tool.failed", {
        callId: event.data.callID,
        error,
      });
    }
    case "session.next.retried":
      return single(state, origin, "retry", {
        attempt: event.data.attempt,
        error: { kind: "provider", message: describeRetryError(event.data.error) },
      });
    case "session.next.model.switched":
      return single(state, origin, "model.switched", { model: modelRefOf(event.data.model) });
    case "session.next.agent.switched":
      return single(state, origin, "agent.switched", { agent: event.data.agent });
    case "session.next.compaction.started":
      return single(state, origin, "compaction.started", { reason: event.data.reason });
    case "session.next.compaction.ended":
      return single(state, origin, "compaction.ended", { reason: event.data.reason });
    case "permission.v2.asked": {
      const { id, action, resources, save, source, metadata } = event.data;
      return single(state, origin, "permission.asked", {
        requestId: id,
        permission: action,
        patterns: resources,
        ...(save === undefined ? {} : { always: save }),
        ...(source?.callID === undefined ? {} : { callId: source.callID }),
        ...(typeof metadata?.diff === "string" ? { diff: metadata.diff } : {}),
      });
    }
    case "permission.v2.replied": {
      const reply = event.data.reply;
      if (reply !== "once" && reply !== "always" && reply !== "reject") {
        return single(state, origin, "native.unknown", { nativeType: event.type, raw: event });
      }
      return single(state, origin, "permission.replied", {
        requestId: event.data.requestID,
        reply,
      });
    }
    case "question.v2.asked":
      return single(state, origin, "question.asked", {
        requestId: event.data.id,
        questions: event.data.questions,
        ...(event.data.tool === undefined ? {} : { callId: event.data.tool.callID }),
      });
    case "question.v2.replied":
      return single(state, origin, "question.replied", {
        requestId: event.data.requestID,
        ...(event.data.answers === undefined ? {} : { answers: event.data.answers }),
      });
    case "question.v2.rejected":
      return single(state, origin, "question.rejected", { requestId: event.data.requestID });
    case "todo.updated":
      return single(state, origin, "todo.updated", { todos: boundedTodos(event.data.todos) });
    case "session.next.synthetic":
      // Known to the wire schema, with no canonical counterpart yet: kept, not dropped.
      return single(state, origin, "native.unknown", { nativeType: event.type, raw: event });
    default:
      return assertNever(event, "/api event");
  }
}

/** An input was delivered: it starts a turn unless one runs (a steer joins it). */
function prompted(
  state: ApiNormalizerState,
  inputId: string,
  at: number,
  native: NativeOrigin,
): Normalized<ApiNormalizerState> {
  // Every state below is `state` with changes: it keeps `sessionId`.
  let next = withoutPending(state, inputId);
  const events: CanonicalEvent[] = [];
  const stopped = next.turn;
  if (stopped?.interrupting) {
    // A run stopped by a rejected permission (or question) publishes no step end: the
    // next delivered input is the first sign that the interrupted turn is over.
    events.push(
      canonical(originIn(next, at, native), 0, "turn.ended", endingOf(stopped, "interrupted")),
    );
    next = { ...next, turn: undefined };
  } else if (stopped !== undefined && state.pending.get(inputId) === "queue") {
    // Without this, the queued input would join a run that is gone, and its own turn would
    // never see a step (server-sigkill finding 3: it ended `stalled`).
    events.push(canonical(originIn(next, at, native), 0, "turn.ended", runLost(stopped)));
    next = { ...next, turn: undefined };
  }
  if (next.turn === undefined) {
    next = startTurn(next, inputId);
    // Indexed after the interrupted turn's end, if any: an event id is its native event's id
    // and its index, and two events with one id are one event to the store.
    events.push(canonical(originIn(next, at, native), events.length, "turn.started", { inputId }));
  }
  events.push(canonical(originIn(next, at, native), events.length, "input.delivered", { inputId }));
  return { state: next, events };
}

/** The end of a turn whose run stopped with no end the stream showed. */
function runLost(turn: NonNullable<ApiNormalizerState["turn"]>) {
  const message =
    "the run stopped with no end on the stream (its server died?): the server delivered the next queued input";
  return endingOf(turn, "failed", { reason: "run-lost", error: { kind: "run-lost", message } });
}

/** The data of an `/api` event of type `T`. */
type DataOf<T extends ApiEvent["type"]> = Extract<ApiEvent, { type: T }>["data"];

/** A step ended: the turn ends with it, unless it called tools or a steer waits. */
function stepEnded(
  state: ApiNormalizerState,
  data: DataOf<"session.next.step.ended">,
  at: number,
  native: NativeOrigin,
): Normalized<ApiNormalizerState> {
  const usage = usageOf(data.tokens, data.cost);
  let next = addTurnUsage(state, usage);
  const origin = originIn(next, at, native);
  const events = [
    canonical(origin, 0, "step.ended", {
      stepId: data.assistantMessageID,
      finish: data.finish,
      usage,
    }),
  ];
  const turn = next.turn;
  if (turn?.interrupting) {
    events.push(canonical(origin, 1, "turn.ended", endingOf(turn, "interrupted")));
    next = { ...next, turn: undefined };
  } else if (turn && data.finish !== "tool-calls" && !hasPendingSteer(next)) {
    events.push(canonical(origin, 1, "turn.ended", endingOf(turn, "completed")));
    next = { ...next, turn: undefined };
  }
  return { state: next, events };
}

/** A step failed: the turn ends `failed`, or `interrupted` when the user asked for it. */
function stepFailed(
  state: ApiNormalizerState,
  data: DataOf<"session.next.step.failed">,
  origin: Origin,
): Normalized<ApiNormalizerState> {
  // 1.18 types every failed model call "unknown"; canonically it is a provider failure.
  const error = {
    kind: data.error.type === "unknown" ? "provider" : data.error.type,
    message: data.error.message,
  };
  const events = [canonical(origin, 0, "step.failed", { stepId: data.assistantMessageID, error })];
  const turn = state.turn;
  if (turn === undefined) return { state, events };
  events.push(
    canonical(
      origin,
      1,
      "turn.ended",
      turn.interrupting
        ? endingOf(turn, "interrupted")
        : endingOf(turn, "failed", { reason: "step-failed", error }),
    ),
  );
  return { state: { ...state, turn: undefined }, events };
}

function describeRetryError(error: unknown): string {
  if (typeof error === "object" && error !== null && "message" in error) {
    return String((error as { message: unknown }).message);
  }
  return JSON.stringify(error);
}
