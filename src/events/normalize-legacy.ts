/**
 * OpenCode 1.18's legacy `/event` stream (one session's events) to canonical events. The
 * legacy stream sends whole part snapshots (`message.part.updated`) and text deltas
 * (`message.part.delta`); this normaliser remembers what each part last looked like and emits
 * the transitions (`legacy-parts.ts`): a text part's first snapshot is `text.started`, its
 * snapshot with an end time is `text.ended`; a tool part's states become `tool.input.started`,
 * `tool.called`, `tool.succeeded` / `tool.failed`.
 *
 * Turn rule: a turn starts when the session turns busy (or a step starts) while none runs, and
 * ends at the next idle (`session.idle` or `session.status` idle): `interrupted` after a
 * `MessageAbortedError`, `failed` after another session error, else `completed`. The shape
 * matches the `/api` surface (`step-endings.ts`): a session error in a turn fails its step, and
 * an abort fails the running tools and ends the step before the turn ends — the server idles
 * before the aborted tool settles, and that late snapshot is then ignored.
 */
import type { Parsed } from "../opencode-protocol/common.js";
import type { LegacyEvent } from "../opencode-protocol/legacy/events.js";
import { assertNever } from "../util/assert-never.js";
import {
  canonical,
  emitterInto,
  errorInfoOf,
  type Normalized,
  type Origin,
  usageOf,
} from "./build.js";
import type { CanonicalEvent, ErrorInfo } from "./canonical.js";
import { type PartsState, remember, textPartSnapshot, toolPartSnapshot } from "./legacy-parts.js";
import { emitInterruptedWork, emitStepFailure } from "./step-endings.js";
import { boundedTodos } from "./todo-list.js";
import {
  addTurnUsage,
  admissionOrigin,
  endingOf,
  initialTurnState,
  startTurn,
  updateTurn,
} from "./turn-state.js";

export interface LegacyNormalizerState extends PartsState {
  readonly sessionId: string;
  /** Role of each message seen, by id. */
  readonly roles: ReadonlyMap<string, "user" | "assistant">;
  /** User messages admitted and not yet answered (message ids), oldest first. */
  readonly waiting: readonly string[];
  /**
   * Bridge input ids of prompts sent and not yet seen, oldest first: the legacy server names
   * no input id when it takes a prompt, so the next user message seen takes the next one.
   * `announced`: the runtime already published `input.admitted` for it.
   */
  readonly expected: readonly { inputId: string; announced: boolean }[];
  /**
   * Inputs whose user message did not show while the prompt waited for it (a loaded server
   * can take longer): they leave `expected`, so that later inputs are not matched to the
   * message before their own, and a late message with the same text is still theirs.
   */
  readonly late: readonly { inputId: string; announced: boolean; text: string }[];
  /** The input id of each user message (its bridge id when one was expected, else its own). */
  readonly inputOf: ReadonlyMap<string, string>;
  /** The session error seen in the running turn, if any. */
  readonly error: ErrorInfo | undefined;
  /** The step (assistant message) started and not finished. */
  readonly openStep: string | undefined;
  /** The latest assistant message: the step a failure belongs to when none is open. */
  readonly lastAssistant: string | undefined;
  readonly busy: boolean;
}

export function initialLegacyState(sessionId: string): LegacyNormalizerState {
  return {
    ...initialTurnState,
    sessionId,
    roles: new Map(),
    parts: new Map(),
    partTypes: new Map(),
    waiting: [],
    expected: [],
    late: [],
    inputOf: new Map(),
    openTools: new Map(),
    subagents: new Map(),
    error: undefined,
    openStep: undefined,
    lastAssistant: undefined,
    busy: false,
  };
}

/** A prompt is about to be sent: the next user message seen is input `inputId`. */
export function legacyPromptSent(
  state: LegacyNormalizerState,
  inputId: string,
  announced: boolean,
): LegacyNormalizerState {
  return { ...state, expected: [...state.expected, { inputId, announced }] };
}

/** The prompt for `inputId` was not taken (the request failed): expect it no longer. */
export function legacyPromptFailed(
  state: LegacyNormalizerState,
  inputId: string,
): LegacyNormalizerState {
  return { ...state, expected: state.expected.filter((entry) => entry.inputId !== inputId) };
}

/** Late inputs kept for their message: a few, the oldest dropped. */
const KEPT_LATE = 20;

/**
 * The user message for `inputId` (whose text is `text`) did not show in time: expect it no
 * longer in order, but match a later message with that text to it.
 */
export function legacyPromptLate(
  state: LegacyNormalizerState,
  inputId: string,
  text: string,
): LegacyNormalizerState {
  const entry = state.expected.find((expected) => expected.inputId === inputId);
  if (entry === undefined) return state;
  return {
    ...legacyPromptFailed(state, inputId),
    late: [...state.late, { ...entry, text }].slice(-KEPT_LATE),
  };
}

/**
 * The runtime ended the running turn itself: forget it and what waited for it. Its run is being
 * stopped (or died with the server), so the session counts as idle: the next input is queued,
 * not steered into it.
 */
/**
 * The user stopped the running turn. A run aborted before its first step sends no
 * `MessageAbortedError`, only its idle: that idle ends the turn `interrupted` too.
 */
export function legacyInterruptRequested(state: LegacyNormalizerState): LegacyNormalizerState {
  return updateTurn(state, { interrupting: true });
}

export function legacyTurnAbandoned(state: LegacyNormalizerState): LegacyNormalizerState {
  return {
    ...state,
    busy: false,
    turn: undefined,
    waiting: [],
    error: undefined,
    openTools: new Map(),
    openStep: undefined,
  };
}

/** Normalises one parsed legacy event of the session. Pure. */
export function normalizeLegacyEvent(
  state: LegacyNormalizerState,
  parsed: Parsed<LegacyEvent>,
): Normalized<LegacyNormalizerState> {
  const raw = parsed.event as { id?: unknown; properties?: { time?: unknown } };
  const at = Number.isFinite(raw.properties?.time) ? (raw.properties?.time as number) : 0;
  const native = {
    backend: "serve-legacy" as const,
    type: parsed.event.type,
    ...(typeof raw.id === "string" ? { id: raw.id } : {}),
  };
  let next: LegacyNormalizerState = state;
  const events: CanonicalEvent[] = [];
  const origin = (): Origin => ({ sessionId: state.sessionId, turnId: next.turn?.id, at, native });
  const emit = emitterInto(events, origin);
  // Session metadata (`session.updated`, `session.diff`, …) is not part of any turn.
  const sessionLevel = parsed.event.type.startsWith("session.");
  const emitOutsideTurn = emitterInto(events, () => ({ ...origin(), turnId: undefined }));
  const unknown = (): Normalized<LegacyNormalizerState> => {
    (sessionLevel ? emitOutsideTurn : emit)("native.unknown", {
      nativeType: parsed.event.type,
      raw: parsed.event,
    });
    return { state: next, events };
  };
  const inputOf = (messageId: string): string => next.inputOf.get(messageId) ?? messageId;
  const startTurnIfIdle = (): void => {
    if (next.turn !== undefined) return;
    const first = next.waiting[0];
    const inputId = first === undefined ? undefined : inputOf(first);
    next = startTurn(next, inputId ?? native.id ?? `turn@${at}`);
    emit("turn.started", inputId === undefined ? {} : { inputId });
  };
  if (!parsed.known) return unknown();
  const event = parsed.event;

  switch (event.type) {
    case "message.updated": {
      const info = event.properties.info;
      if (next.roles.has(info.id)) return { state: next, events };
      next = { ...next, roles: new Map(next.roles).set(info.id, info.role) };
      if (info.role === "assistant") {
        next = { ...next, lastAssistant: info.id };
        const parentId = info.parentID;
        if (next.waiting.includes(parentId)) {
          startTurnIfIdle();
          next = { ...next, waiting: next.waiting.filter((id) => id !== parentId) };
          emit("input.delivered", { inputId: inputOf(parentId) });
        }
      }
      return { state: next, events };
    }
    case "message.part.updated": {
      const part = event.properties.part;
      const role = next.roles.get(part.type === "unknown" ? part.raw.messageID : part.messageID);
      if (part.type === "text" && role === "user") {
        if (next.parts.has(part.id) || part.synthetic) return { state: next, events };
        next = remember(next, part.id, "text-ended", "text");
        // A late input's message first (by its text), else the next input expected (in order).
        const lateIndex = next.late.findIndex((entry) => entry.text === part.text);
        const [first, ...rest] = next.expected;
        const alias = lateIndex >= 0 ? next.late[lateIndex] : first;
        const inputId = alias?.inputId ?? part.messageID;
        next = {
          ...next,
          ...(lateIndex >= 0
            ? { late: next.late.filter((_, index) => index !== lateIndex) }
            : { expected: rest }),
          inputOf: new Map(next.inputOf).set(part.messageID, inputId),
          waiting: [...next.waiting, part.messageID],
        };
        if (alias?.announced) return { state: next, events };
        const delivery = next.busy ? "steer" : "queue";
        events.push(
          canonical(
            admissionOrigin(origin(), next, inputId, delivery),
            events.length,
            "input.admitted",
            { inputId, text: part.text, delivery },
          ),
        );
        return { state: next, events };
      }
      // A user message's other parts (files, agent mentions) are the input's own: the runtime
      // records them on its `input.admitted` (as references, not the bytes of a data URL).
      if (role === "user") return { state: next, events };
      switch (part.type) {
        case "step-start":
          startTurnIfIdle();
          next = { ...next, openStep: part.messageID };
          emit("step.started", { stepId: part.messageID });
          return { state: next, events };
        case "step-finish": {
          const usage = usageOf(part.tokens, part.cost);
          next = { ...addTurnUsage(next, usage), openStep: undefined };
          emit("step.ended", { stepId: part.messageID, finish: part.reason, usage });
          return { state: next, events };
        }
        case "text":
        case "reasoning":
          next = textPartSnapshot(next, part, emit);
          return { state: next, events };
        case "tool":
          next = toolPartSnapshot(next, part, emit);
          return { state: next, events };
        // Parts with no canonical counterpart yet: kept, not dropped.
        case "file":
        case "agent":
        case "subtask":
        case "patch":
        case "unknown":
          return unknown();
        default:
          return assertNever(part, "legacy part");
      }
    }
    case "message.part.delta": {
      const { partID, messageID, delta, field } = event.properties;
      const type = next.partTypes.get(partID);
      if (field !== "text" || (type !== "text" && type !== "reasoning")) return unknown();
      emit(type === "text" ? "text.delta" : "reasoning.delta", {
        partId: `${messageID}/${partID}`,
        delta,
      });
      return { state: next, events };
    }
    case "session.status":
      if (event.properties.status.type === "busy") {
        next = { ...next, busy: true };
        return { state: next, events };
      }
      if (event.properties.status.type === "idle") return endTurn();
      return unknown();
    case "session.idle":
      return endTurn();
    case "session.error": {
      const error = errorInfoOf(event.properties.error);
      const turn = next.turn;
      if (turn === undefined) {
        emit("session.error", { error });
        return { state: next, events };
      }
      // An abort is the interrupt's own signal, not a failure; the idle that follows ends the turn.
      if (error.kind !== "aborted") {
        emitStepFailure(emit, next.openStep, next.lastAssistant ?? `${turn.id}/step`, error);
      }
      next = { ...next, error, openStep: error.kind === "aborted" ? next.openStep : undefined };
      return { state: next, events };
    }
    case "session.updated":
      emitOutsideTurn("session.updated", { title: event.properties.info.title });
      return { state: next, events };
    case "session.created":
      emitOutsideTurn("session.created", {
        title: event.properties.info.title,
        directory: event.properties.info.directory,
      });
      return { state: next, events };
    case "permission.asked": {
      const asked = event.properties;
      const metadata = asked.metadata;
      emit("permission.asked", {
        requestId: asked.id,
        permission: asked.permission,
        patterns: asked.patterns,
        always: asked.always,
        ...(asked.tool === undefined ? {} : { callId: asked.tool.callID }),
        ...(typeof metadata.diff === "string" ? { diff: metadata.diff } : {}),
        ...(typeof metadata.filepath === "string" ? { files: [metadata.filepath] } : {}),
      });
      return { state: next, events };
    }
    case "permission.replied": {
      const reply = event.properties.reply;
      if (reply !== "once" && reply !== "always" && reply !== "reject") return unknown();
      emit("permission.replied", { requestId: event.properties.requestID, reply });
      return { state: next, events };
    }
    case "question.asked":
      emit("question.asked", {
        requestId: event.properties.id,
        questions: event.properties.questions,
        ...(event.properties.tool === undefined ? {} : { callId: event.properties.tool.callID }),
      });
      return { state: next, events };
    case "question.replied":
      emit("question.replied", { requestId: event.properties.requestID });
      return { state: next, events };
    case "question.rejected":
      emit("question.rejected", { requestId: event.properties.requestID });
      return { state: next, events };
    case "file.edited":
      emit("file.edited", { file: event.properties.file });
      return { state: next, events };
    case "session.compacted":
      // Sent while the summary's own run (the compaction agent's turn) still runs; not part of it.
      emitOutsideTurn("session.compacted", {});
      return { state: next, events };
    case "todo.updated":
      emit("todo.updated", { todos: boundedTodos(event.properties.todos) });
      return { state: next, events };
    // Known to the wire schema, with no canonical counterpart yet: kept, not dropped.
    case "server.connected":
    case "server.heartbeat":
    case "session.deleted":
    case "session.diff":
    case "message.removed":
    case "message.part.removed":
      return unknown();
    default:
      return assertNever(event, "legacy event");
  }

  function endTurn(): Normalized<LegacyNormalizerState> {
    const turn = next.turn;
    next = { ...next, busy: false };
    if (turn === undefined) return { state: next, events };
    const error = next.error;
    if (error?.kind === "aborted") {
      emitInterruptedWork(emit, next.openStep, next.openTools.values());
      for (const partId of next.openTools.keys()) next = remember(next, partId, "done", "tool");
    }
    const ending =
      error === undefined
        ? endingOf(turn, turn.interrupting ? "interrupted" : "completed")
        : error.kind === "aborted"
          ? endingOf(turn, "interrupted")
          : endingOf(turn, "failed", { reason: "step-failed", error });
    emit("turn.ended", ending);
    next = {
      ...next,
      turn: undefined,
      error: undefined,
      openTools: new Map(),
      openStep: undefined,
    };
    return { state: next, events };
  }
}
