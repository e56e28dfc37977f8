/**
 * The canonical event stream: one vocabulary for every backend and OpenCode version.
 *
 * Durable events are what a transcript keeps; ephemeral ones (deltas, progress, usage ticks)
 * are live-only. A completed value always arrives as a durable event too, so a client that
 * missed deltas still ends with the right text. Names are `noun.verb` in the past tense, with
 * `started` / `delta` / `ended` for streamed things. Each type is defined, with an example, in
 * `event-definitions.ts`; docs/events.md shows them.
 */

import type { z } from "zod";
import { DURABLE_EVENTS, EPHEMERAL_EVENTS } from "./event-definitions.js";
import {
  ConnectionStateSchema,
  ErrorInfoSchema,
  FileChangeSchema,
  ModelRefSchema,
  NativeOriginSchema,
  OutcomeSchema,
  RevertedFileSchema,
  TodoSchema,
  UsageSchema,
} from "./event-parts.js";

// The types below are derived from the schemas of event-definitions.ts and event-parts.ts, the
// one definition of each event, through values that nothing reads: the declaration emitter
// writes an inferred value type out in full but keeps a type alias as written, so the published
// declarations (and the API report) show each payload as a plain object type, not as
// `z.output<…>` of a schema that is not public.

/** A value of the output type of `schema` (never made: only its type is read). */
function outputOf<S extends z.ZodType>(_schema: S): z.output<S> {
  return undefined as never;
}

/** The output types of a map of schemas, key by key. */
function outputsOf<M extends Record<string, z.ZodType>>(
  _schemas: M,
): { [K in keyof M]: z.output<M[K]> } {
  return undefined as never;
}

const outcome = outputOf(OutcomeSchema);
const usage = outputOf(UsageSchema);
const errorInfo = outputOf(ErrorInfoSchema);
const modelRef = outputOf(ModelRefSchema);
const connectionState = outputOf(ConnectionStateSchema);
const revertedFile = outputOf(RevertedFileSchema);
const fileChange = outputOf(FileChangeSchema);
const todo = outputOf(TodoSchema);
const nativeOrigin = outputOf(NativeOriginSchema);
const durablePayloads = outputsOf(DURABLE_EVENTS);
const ephemeralPayloads = outputsOf(EPHEMERAL_EVENTS);

export type Outcome = typeof outcome;
export type Usage = typeof usage;
/** `kind`: a short machine-readable kind (`aborted`, `provider`, `stalled`, …). */
export type ErrorInfo = typeof errorInfo;
/** A model, canonically: `{ providerID: "anthropic", modelID: "claude-sonnet-4" }`. */
export type ModelRef = typeof modelRef;
/**
 * Whether a session's native streams reach the server. `reconnecting` since the first failed
 * attempt of an outage, with the count of failed attempts in a row; `connected` since it ended.
 */
export type ConnectionState = typeof connectionState;
/** A file an undo or redo puts back: its path in the session's directory, the lines it changes. */
export type RevertedFile = typeof revertedFile;
/** A changed file: its path in the session's directory, how it changed, the lines it changes. */
export type FileChange = typeof fileChange;
/** One entry of a session's todo list (`status`: pending, in_progress, completed, cancelled). */
export type Todo = typeof todo;

/** Payloads of the durable events (stored, numbered, replayed), by type. */
export type DurableEventData = typeof durablePayloads;
/** Payloads of the ephemeral (live-only) events, by type. */
export type EphemeralEventData = typeof ephemeralPayloads;

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
export type NativeOrigin = typeof nativeOrigin;

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

// In the order of their definition (docs/events.md lists them in it).
const DURABLE_TYPES = Object.keys(DURABLE_EVENTS) as DurableType[];
const EPHEMERAL_TYPES = Object.keys(EPHEMERAL_EVENTS) as EphemeralType[];

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
