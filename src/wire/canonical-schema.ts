/**
 * zod schemas of the canonical events (`src/events/canonical.ts`), for the wire: the sidecar
 * documents its stream with them (OpenAPI) and the client validates what it receives. The
 * checks at the bottom make a drift between these and the hand-written types a compile error.
 */
import { z } from "zod";
import type {
  CanonicalEvent,
  CanonicalEventOf,
  CanonicalType,
  ConnectionState,
  DurableEventData,
  EphemeralEventData,
  ErrorInfo,
  ModelRef,
  NativeOrigin,
  Usage,
} from "../events/canonical.js";
import { assertType, type Equals } from "./type-equality.js";

const optionalString = () => z.string().exactOptional();

export const UsageSchema = z.object({
  tokens: z.object({
    input: z.number(),
    output: z.number(),
    reasoning: z.number(),
    cacheRead: z.number(),
    cacheWrite: z.number(),
  }),
  cost: z.number(),
});

export const ErrorInfoSchema = z.object({ kind: z.string(), message: z.string() });

export const ModelRefSchema = z.object({ providerID: z.string(), modelID: z.string() });

export const OutcomeSchema = z.enum(["completed", "interrupted", "failed"]);

const ConnectionStateSchema = z.object({
  state: z.enum(["connected", "reconnecting"]),
  since: z.number(),
  attempt: z.number(),
  reason: optionalString(),
});

const NativeOriginSchema = z.object({
  backend: z.enum(["serve", "serve-legacy", "subprocess", "replay"]),
  type: z.string(),
  seq: z.number().exactOptional(),
  id: optionalString(),
});

const usage = () => UsageSchema.exactOptional();
const stepId = () => optionalString();

/** The payload schema of each durable event type. */
export const durableDataSchemas = {
  "session.created": z.object({
    title: optionalString(),
    directory: optionalString(),
    parentSessionId: optionalString(),
  }),
  "session.updated": z.object({ title: optionalString() }),
  "session.error": z.object({ error: ErrorInfoSchema }),
  "input.admitted": z.object({
    inputId: z.string(),
    text: z.string(),
    delivery: z.enum(["steer", "queue"]),
    files: z.array(z.string()).exactOptional(),
  }),
  "input.delivered": z.object({ inputId: z.string() }),
  "input.cancelled": z.object({ inputId: z.string(), reason: z.string() }),
  "turn.started": z.object({ inputId: optionalString() }),
  "turn.ended": z.object({
    outcome: OutcomeSchema,
    reason: optionalString(),
    error: ErrorInfoSchema.exactOptional(),
    usage: usage(),
    text: optionalString(),
  }),
  "step.started": z.object({
    stepId: z.string(),
    model: ModelRefSchema.exactOptional(),
    agent: optionalString(),
  }),
  "step.ended": z.object({ stepId: z.string(), finish: z.string(), usage: usage() }),
  "step.failed": z.object({ stepId: z.string(), error: ErrorInfoSchema, usage: usage() }),
  "text.started": z.object({ partId: z.string(), stepId: stepId() }),
  "text.ended": z.object({ partId: z.string(), stepId: stepId(), text: z.string() }),
  "reasoning.started": z.object({ partId: z.string(), stepId: stepId() }),
  "reasoning.ended": z.object({ partId: z.string(), stepId: stepId(), text: z.string() }),
  "tool.input.started": z.object({ callId: z.string(), tool: z.string(), stepId: stepId() }),
  "tool.input.ended": z.object({ callId: z.string(), input: z.string() }),
  "tool.called": z.object({
    callId: z.string(),
    tool: z.string(),
    input: z.record(z.string(), z.unknown()),
    stepId: stepId(),
  }),
  "tool.succeeded": z.object({ callId: z.string(), output: z.string(), title: optionalString() }),
  "tool.failed": z.object({ callId: z.string(), error: ErrorInfoSchema }),
  "permission.asked": z.object({
    requestId: z.string(),
    permission: z.string(),
    patterns: z.array(z.string()),
    callId: optionalString(),
    always: z.array(z.string()).exactOptional(),
    diff: optionalString(),
    files: z.array(z.string()).exactOptional(),
    diffOmitted: z.enum(["outside-directory", "too-large", "too-slow"]).exactOptional(),
    childSessionId: optionalString(),
  }),
  "permission.replied": z.object({
    requestId: z.string(),
    reply: z.enum(["once", "always", "reject"]),
  }),
  "question.asked": z.object({
    requestId: z.string(),
    questions: z.array(z.unknown()),
    callId: optionalString(),
    childSessionId: optionalString(),
  }),
  "question.replied": z.object({
    requestId: z.string(),
    answers: z.array(z.unknown()).exactOptional(),
  }),
  "question.rejected": z.object({ requestId: z.string() }),
  "subagent.started": z.object({
    callId: z.string(),
    childSessionId: z.string(),
    agent: optionalString(),
    description: optionalString(),
  }),
  "subagent.ended": z.object({
    callId: z.string(),
    childSessionId: z.string(),
    result: optionalString(),
  }),
  "session.reverted": z.object({ inputId: z.string() }),
  "file.edited": z.object({ file: z.string() }),
  "model.switched": z.object({ model: ModelRefSchema }),
  retry: z.object({ attempt: z.number(), error: ErrorInfoSchema }),
  "compaction.started": z.object({ reason: optionalString() }),
  "compaction.ended": z.object({ reason: optionalString() }),
  "native.unknown": z.object({ nativeType: z.string(), raw: z.unknown(), error: optionalString() }),
} as const;

/** The payload schema of each ephemeral event type. */
export const ephemeralDataSchemas = {
  "text.delta": z.object({
    partId: z.string(),
    delta: z.string(),
    catchUp: z.literal(true).exactOptional(),
  }),
  "reasoning.delta": z.object({
    partId: z.string(),
    delta: z.string(),
    catchUp: z.literal(true).exactOptional(),
  }),
  "tool.input.delta": z.object({
    callId: z.string(),
    delta: z.string(),
    catchUp: z.literal(true).exactOptional(),
  }),
  "tool.progress": z.object({
    callId: z.string(),
    metadata: z.record(z.string(), z.unknown()).exactOptional(),
  }),
  "usage.updated": z.object({ usage: UsageSchema }),
  "connection.changed": ConnectionStateSchema,
} as const;

type DurableSchemas = typeof durableDataSchemas;
type EphemeralSchemas = typeof ephemeralDataSchemas;

function envelope<T extends string, D extends z.ZodType, Durable extends boolean>(
  type: T,
  data: D,
  durable: Durable,
) {
  return z.object({
    id: z.string(),
    seq: z.number().exactOptional(),
    sessionId: z.string(),
    turnId: optionalString(),
    at: z.number(),
    type: z.literal(type),
    data,
    durable: z.literal(durable),
    native: NativeOriginSchema.exactOptional(),
  });
}

type EnvelopeSchema<T extends string, D extends z.ZodType, Durable extends boolean> = ReturnType<
  typeof envelope<T, D, Durable>
>;

type EventSchemas = {
  [T in keyof DurableSchemas]: EnvelopeSchema<T, DurableSchemas[T], true>;
} & { [T in keyof EphemeralSchemas]: EnvelopeSchema<T, EphemeralSchemas[T], false> };

function eventSchemas(): EventSchemas {
  const entries = [
    ...Object.entries(durableDataSchemas).map(([type, data]) => [type, envelope(type, data, true)]),
    ...Object.entries(ephemeralDataSchemas).map(([type, data]) => [
      type,
      envelope(type, data, false),
    ]),
  ];
  // Built from the two maps above, key by key: the mapped type is what this object is.
  return Object.fromEntries(entries) as EventSchemas;
}

/** One envelope schema per canonical type (`canonicalEventSchemas["tool.called"]`). */
export const canonicalEventSchemas: EventSchemas = eventSchemas();

type EventSchemaList = EventSchemas[keyof EventSchemas];

/** Any canonical event, discriminated on `type`. */
export const CanonicalEventSchema = z.discriminatedUnion(
  "type",
  Object.values(canonicalEventSchemas) as unknown as [EventSchemaList, ...EventSchemaList[]],
);

// --- compile-time checks: each schema's type is the hand-written one, both ways ---
// Checked type by type: `Equals` on the whole mapped object is stricter than its members.

type DurableMismatch = {
  [T in keyof DurableSchemas]: Equals<z.infer<DurableSchemas[T]>, DurableEventData[T]> extends true
    ? never
    : T;
}[keyof DurableSchemas];
type EphemeralMismatch = {
  [T in keyof EphemeralSchemas]: Equals<
    z.infer<EphemeralSchemas[T]>,
    EphemeralEventData[T]
  > extends true
    ? never
    : T;
}[keyof EphemeralSchemas];
type EventMismatch = {
  [T in CanonicalType]: Equals<z.infer<EventSchemas[T]>, CanonicalEventOf<T>> extends true
    ? never
    : T;
}[CanonicalType];

assertType<Equals<keyof DurableSchemas, keyof DurableEventData>>(true);
assertType<Equals<keyof EphemeralSchemas, keyof EphemeralEventData>>(true);
assertType<Equals<DurableMismatch, never>>(true);
assertType<Equals<EphemeralMismatch, never>>(true);
assertType<Equals<EventMismatch, never>>(true);
assertType<Equals<z.infer<typeof UsageSchema>, Usage>>(true);
assertType<Equals<z.infer<typeof ErrorInfoSchema>, ErrorInfo>>(true);
assertType<Equals<z.infer<typeof ModelRefSchema>, ModelRef>>(true);
assertType<Equals<z.infer<typeof ConnectionStateSchema>, ConnectionState>>(true);
assertType<Equals<z.infer<typeof NativeOriginSchema>, NativeOrigin>>(true);
// The union as a whole, both ways (mutual assignability: `Equals` is too strict for unions).
const _toCanonical = (event: z.infer<typeof CanonicalEventSchema>): CanonicalEvent => event;
const _fromCanonical = (event: CanonicalEvent): z.infer<typeof CanonicalEventSchema> => event;
