/**
 * The canonical event stream: one vocabulary for every backend and OpenCode version.
 *
 * Durable events are what a transcript keeps; ephemeral ones (deltas, progress, usage ticks)
 * are live-only. A completed value always arrives as a durable event too, so a client that
 * missed deltas still ends with the right text. Names are `noun.verb` in the past tense, with
 * `started` / `delta` / `ended` for streamed things. See docs/events.md for an example of each.
 */

export type Outcome = "completed" | "interrupted" | "failed";

export interface Usage {
  tokens: {
    input: number;
    output: number;
    reasoning: number;
    cacheRead: number;
    cacheWrite: number;
  };
  cost: number;
}

export interface ErrorInfo {
  /** A short machine-readable kind (`aborted`, `provider`, `stalled`, …). */
  kind: string;
  message: string;
}

/** A model, canonically: `{ providerID: "anthropic", modelID: "claude-sonnet-4" }`. */
export interface ModelRef {
  providerID: string;
  modelID: string;
}

/** Payloads of the durable events, by type. */
export interface DurableEventData {
  "session.created": { title?: string; directory?: string; parentSessionId?: string };
  "session.updated": { title?: string };
  "session.error": { error: ErrorInfo };
  /**
   * The session was reverted to before this input: OpenCode forgot it and everything after it
   * (their file changes undone), so a conversation drops them too.
   */
  "session.reverted": { inputId: string };
  "input.admitted": {
    inputId: string;
    text: string;
    delivery: "steer" | "queue";
    files?: string[];
  };
  "input.delivered": { inputId: string };
  "input.cancelled": { inputId: string; reason: string };
  "turn.started": { inputId?: string };
  "turn.ended": {
    outcome: Outcome;
    reason?: string;
    error?: ErrorInfo;
    usage?: Usage;
    text?: string;
  };
  "step.started": { stepId: string; model?: ModelRef; agent?: string };
  "step.ended": { stepId: string; finish: string; usage?: Usage };
  "step.failed": { stepId: string; error: ErrorInfo; usage?: Usage };
  "text.started": { partId: string; stepId?: string };
  "text.ended": { partId: string; stepId?: string; text: string };
  "reasoning.started": { partId: string; stepId?: string };
  "reasoning.ended": { partId: string; stepId?: string; text: string };
  "tool.input.started": { callId: string; tool: string; stepId?: string };
  "tool.input.ended": { callId: string; input: string };
  "tool.called": { callId: string; tool: string; input: Record<string, unknown>; stepId?: string };
  "tool.succeeded": { callId: string; output: string; title?: string };
  "tool.failed": { callId: string; error: ErrorInfo };
  "permission.asked": {
    requestId: string;
    permission: string;
    patterns: string[];
    callId?: string;
    always?: string[];
    diff?: string;
    files?: string[];
    /**
     * Why a file edit's ask has no `diff`: the bridge reads no file outside the session
     * directory, nor one (or an edit's result) over 1 MiB, and gives up a diff after 400 ms.
     */
    diffOmitted?: "outside-directory" | "too-large" | "too-slow";
    /** Set when a subagent's child session asks: the ask surfaces on the parent's turn. */
    childSessionId?: string;
  };
  "permission.replied": { requestId: string; reply: "once" | "always" | "reject" };
  "question.asked": {
    requestId: string;
    questions: unknown[];
    callId?: string;
    /** Set when a subagent's child session asks. */
    childSessionId?: string;
  };
  "question.replied": { requestId: string; answers?: unknown[] };
  "question.rejected": { requestId: string };
  "subagent.started": {
    callId: string;
    childSessionId: string;
    agent?: string;
    description?: string;
  };
  "subagent.ended": { callId: string; childSessionId: string; result?: string };
  "file.edited": { file: string };
  "model.switched": { model: ModelRef };
  retry: { attempt: number; error: ErrorInfo };
  "compaction.started": { reason?: string };
  "compaction.ended": { reason?: string };
  /** `error`: why it was not understood (its schema's issues, or what the normaliser threw). */
  "native.unknown": { nativeType: string; raw: unknown; error?: string };
}

/**
 * Payloads of the ephemeral (live-only) events, by type. A delta with `catchUp` is the first a
 * reader that joined mid-part is given: `delta` is everything the part has streamed so far,
 * which replaces what the reader has of it (one that resumed mid-part has some already). See
 * docs/events.md, "Deltas".
 */
export interface EphemeralEventData {
  "text.delta": { partId: string; delta: string; catchUp?: true };
  "reasoning.delta": { partId: string; delta: string; catchUp?: true };
  "tool.input.delta": { callId: string; delta: string; catchUp?: true };
  "tool.progress": { callId: string; metadata?: Record<string, unknown> };
  "usage.updated": { usage: Usage };
  /** The session's native streams lost the server or reached it again (`Session.connection`). */
  "connection.changed": ConnectionState;
}

/**
 * Whether a session's native streams reach the server. `reconnecting` since the first failed
 * attempt of an outage, with the count of failed attempts in a row; `connected` since it ended.
 */
export interface ConnectionState {
  state: "connected" | "reconnecting";
  /** Milliseconds since the epoch. */
  since: number;
  attempt: number;
  /** Why the last attempt failed (while reconnecting). */
  reason?: string;
}

export type DurableType = keyof DurableEventData;
export type EphemeralType = keyof EphemeralEventData;
export type CanonicalType = DurableType | EphemeralType;
/** The payload of an event of type `T` (`EventData<"tool.called">`). */
export type EventData<T extends CanonicalType> = T extends DurableType
  ? DurableEventData[T]
  : T extends EphemeralType
    ? EphemeralEventData[T]
    : never;

/** Where a canonical event came from, for debugging. */
export interface NativeOrigin {
  backend: "serve" | "serve-legacy" | "subprocess" | "replay";
  type: string;
  seq?: number;
  id?: string;
}

/** One canonical event of type `T`. `seq` is the bridge's per-session sequence (durable only). */
export type CanonicalEventOf<T extends CanonicalType> = {
  id: string;
  seq?: number;
  sessionId: string;
  turnId?: string;
  /** Milliseconds since the epoch, from the native event when it has one. */
  at: number;
  type: T;
  data: EventData<T>;
  durable: T extends DurableType ? true : false;
  native?: NativeOrigin;
};

/** The canonical event union: a `switch (event.type)` over it narrows `data`. */
export type CanonicalEvent = { [T in CanonicalType]: CanonicalEventOf<T> }[CanonicalType];

const DURABLE_TYPES: readonly DurableType[] = [
  "session.created",
  "session.updated",
  "session.error",
  "session.reverted",
  "input.admitted",
  "input.delivered",
  "input.cancelled",
  "turn.started",
  "turn.ended",
  "step.started",
  "step.ended",
  "step.failed",
  "text.started",
  "text.ended",
  "reasoning.started",
  "reasoning.ended",
  "tool.input.started",
  "tool.input.ended",
  "tool.called",
  "tool.succeeded",
  "tool.failed",
  "permission.asked",
  "permission.replied",
  "question.asked",
  "question.replied",
  "question.rejected",
  "subagent.started",
  "subagent.ended",
  "file.edited",
  "model.switched",
  "retry",
  "compaction.started",
  "compaction.ended",
  "native.unknown",
];
const EPHEMERAL_TYPES: readonly EphemeralType[] = [
  "text.delta",
  "reasoning.delta",
  "tool.input.delta",
  "tool.progress",
  "usage.updated",
  "connection.changed",
];

/** Every canonical type, durable first. */
export const CANONICAL_TYPES: readonly CanonicalType[] = [...DURABLE_TYPES, ...EPHEMERAL_TYPES];

// Sets: every event the normalisers make asks whether its type is durable.
const DURABLE_SET: ReadonlySet<string> = new Set(DURABLE_TYPES);
const CANONICAL_SET: ReadonlySet<string> = new Set(CANONICAL_TYPES);

export function isDurableType(type: string): type is DurableType {
  return DURABLE_SET.has(type);
}

export function isCanonicalType(type: string): type is CanonicalType {
  return CANONICAL_SET.has(type);
}

/** For exhaustive switches: a new canonical type that is not handled fails to compile. */
export { assertNever } from "../util/assert-never.js";
