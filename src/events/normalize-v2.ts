/**
 * OpenCode 2.0's `session.*` events to canonical events. 2.0 states turns itself: an
 * execution starts with `session.execution.started` and ends with exactly one terminal
 * `session.execution.{succeeded,failed,interrupted}`, which ends the canonical turn.
 * Pinned to the recorded 2.0.18 session of seed 000.
 */
import type { Parsed, Tokens } from "../opencode-protocol/common.js";
import type { V2Event } from "../opencode-protocol/v2/events.js";
import { assertNever } from "../util/assert-never.js";
import { isRecord } from "../util/is-record.js";
import { canonical, type Normalized, type Origin, serveNativeOf, usageOf } from "./build.js";
import type { CanonicalEvent, CanonicalEventOf, CanonicalType } from "./canonical.js";
import { normalizeStepPart, type StepPart } from "./step-parts.js";
import {
  addTurnUsage,
  admissionOrigin,
  endingOf,
  initialTurnState,
  startTurn,
  type TurnState,
  withoutPending,
  withPending,
} from "./turn-state.js";

export interface V2NormalizerState extends TurnState {
  readonly sessionId: string;
  /** The input that the next execution starts with (the oldest enqueued, not yet run). */
  readonly queue: readonly string[];
  /** Tool names by call id: 2.0's `tool.called` does not repeat the name `tool.input.started` gave. */
  readonly tools: ReadonlyMap<string, string>;
}

export function initialV2State(sessionId: string): V2NormalizerState {
  return { ...initialTurnState, sessionId, queue: [], tools: new Map() };
}

/** Normalises one parsed 2.0 event. Pure: the same state and event give the same result. */
export function normalizeV2Event(
  state: V2NormalizerState,
  parsed: Parsed<V2Event>,
): Normalized<V2NormalizerState> {
  const raw = parsed.event as { created?: unknown };
  // An event that failed its schema comes here too: a time of the wrong type is no time.
  const at = Number.isFinite(raw.created) ? (raw.created as number) : 0;
  const native = serveNativeOf(parsed.event);
  const origin = (current: TurnState): Origin => ({
    sessionId: state.sessionId,
    turnId: current.turn?.id,
    at,
    native,
  });
  const unknown = (): Normalized<V2NormalizerState> => ({
    state,
    events: [
      canonical(origin(state), 0, "native.unknown", {
        nativeType: parsed.event.type,
        raw: parsed.event,
      }),
    ],
  });
  if (!parsed.known) return unknown();
  const event = parsed.event;
  const one = (next: V2NormalizerState, made: CanonicalEvent): Normalized<V2NormalizerState> => ({
    state: next,
    events: [made],
  });
  /** The one canonical event of this native event, the state unchanged. */
  const emit = <T extends CanonicalType>(type: T, data: CanonicalEventOf<T>["data"]) =>
    one(state, canonical(origin(state), 0, type, data));
  /** A part mapped as on 1.18's `/api` (`step-parts.ts`), under 2.0's field names. */
  const stepPart = (part: StepPart) => normalizeStepPart(state, origin(state), part);

  switch (event.type) {
    case "session.created":
      return emit("session.created", {
        ...(event.data.title === undefined ? {} : { title: event.data.title }),
      });
    case "session.inbox.enqueued": {
      const { inboxID, item } = event.data;
      const next = {
        ...withPending(state, inboxID, item.delivery),
        queue: [...state.queue, inboxID],
      };
      return one(
        next,
        canonical(
          admissionOrigin(origin(state), state, inboxID, item.delivery),
          0,
          "input.admitted",
          {
            inputId: inboxID,
            text: item.payload.text ?? "",
            delivery: item.delivery,
          },
        ),
      );
    }
    case "session.execution.started": {
      const [first, ...rest] = state.queue;
      const inputId = first ?? native.id ?? "execution";
      const next = { ...startTurn(state, inputId), queue: rest };
      return one(
        next,
        canonical(origin(next), 0, "turn.started", first === undefined ? {} : { inputId: first }),
      );
    }
    case "session.inbox.delivered": {
      const next = {
        ...withoutPending(state, event.data.inboxID),
        queue: state.queue.filter((id) => id !== event.data.inboxID),
      };
      return one(
        next,
        canonical(origin(state), 0, "input.delivered", { inputId: event.data.inboxID }),
      );
    }
    case "session.step.started": {
      const { assistantMessageID: stepId, agent, model } = event.data;
      return stepPart({ type: "step.started", stepId, agent, model });
    }
    case "session.step.ended": {
      const usage = stepUsageOf(event.data);
      return one(
        addTurnUsage(state, usage),
        canonical(origin(state), 0, "step.ended", {
          stepId: event.data.assistantMessageID,
          finish: String((event.data as { finish?: unknown }).finish ?? "unknown"),
          ...(usage === undefined ? {} : { usage }),
        }),
      );
    }
    case "session.step.failed": {
      const usage = stepUsageOf(event.data);
      return one(
        addTurnUsage(state, usage),
        canonical(origin(state), 0, "step.failed", {
          stepId: event.data.assistantMessageID,
          error: { kind: event.data.error.type, message: event.data.error.message },
          ...(usage === undefined ? {} : { usage }),
        }),
      );
    }
    case "session.text.started":
      return stepPart({
        type: "text.started",
        stepId: event.data.assistantMessageID,
        localId: event.data.ordinal,
      });
    case "session.text.delta":
      return stepPart({
        type: "text.delta",
        stepId: event.data.assistantMessageID,
        localId: event.data.ordinal,
        delta: event.data.delta,
      });
    case "session.text.ended":
      return stepPart({
        type: "text.ended",
        stepId: event.data.assistantMessageID,
        localId: event.data.ordinal,
        text: event.data.text,
      });
    case "session.tool.input.started": {
      const { assistantMessageID: stepId, id: callId, name: tool } = event.data;
      const started = stepPart({ type: "tool.input.started", stepId, callId, tool });
      return {
        ...started,
        state: { ...started.state, tools: new Map(state.tools).set(callId, tool) },
      };
    }
    case "session.tool.input.delta":
      return stepPart({ type: "tool.input.delta", callId: event.data.id, delta: event.data.delta });
    case "session.tool.input.ended":
      return stepPart({ type: "tool.input.ended", callId: event.data.id, input: event.data.text });
    case "session.tool.called":
      return emit("tool.called", {
        callId: event.data.id,
        tool: state.tools.get(event.data.id) ?? toolNameOf(event.data),
        input: event.data.input,
        stepId: event.data.assistantMessageID,
      });
    case "session.tool.progress":
      return emit("tool.progress", {
        callId: event.data.id,
        ...metadataOf(event.data),
      });
    case "session.tool.success":
      return emit("tool.succeeded", {
        callId: event.data.id,
        output: String((event.data as { output?: unknown }).output ?? ""),
      });
    case "session.tool.failed":
      return emit("tool.failed", {
        callId: event.data.id,
        error: { kind: event.data.error.type, message: event.data.error.message },
      });
    case "session.usage.updated":
      return emit("usage.updated", {
        usage: usageOf(event.data.tokens, event.data.cost),
      });
    case "session.execution.succeeded":
    case "session.execution.failed":
    case "session.execution.interrupted": {
      const turn = state.turn;
      if (turn === undefined) return unknown();
      const data =
        event.type === "session.execution.succeeded"
          ? endingOf(turn, "completed")
          : event.type === "session.execution.interrupted"
            ? endingOf(turn, "interrupted", { reason: event.data.reason ?? "interrupted" })
            : endingOf(turn, "failed", {
                reason: "execution-failed",
                ...(event.data.error === undefined
                  ? {}
                  : { error: { kind: event.data.error.type, message: event.data.error.message } }),
              });
      return one({ ...state, turn: undefined }, canonical(origin(state), 0, "turn.ended", data));
    }
    case "server.connected":
    case "session.instructions.updated":
    case "session.step.streamed":
      return unknown();
    default:
      return assertNever(event, "2.0 event");
  }
}

/** A step's usage, if it reported tokens (2.0 leaves them out of some step ends). */
function stepUsageOf(step: { tokens?: Tokens | undefined; cost?: number | undefined }) {
  return step.tokens === undefined ? undefined : usageOf(step.tokens, step.cost ?? 0);
}

/** A tool name carried by the event itself, if any. */
function toolNameOf(data: Record<string, unknown>): string {
  return typeof data.tool === "string"
    ? data.tool
    : typeof data.name === "string"
      ? data.name
      : "unknown";
}

function metadataOf(data: Record<string, unknown>): { metadata?: Record<string, unknown> } {
  const metadata = data.metadata;
  // 2.0's schema leaves it untyped; the canonical event carries a record or nothing.
  return isRecord(metadata) ? { metadata } : {};
}
