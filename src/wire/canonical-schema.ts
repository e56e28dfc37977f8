/**
 * The canonical events' envelope schemas, for the wire: the sidecar documents its stream with
 * them (OpenAPI) and the client validates what it receives. Built from the payload schemas of
 * `events/event-definitions.ts`, type by type: a new event type needs nothing here.
 */
import { z } from "zod";
import type { CanonicalEvent, CanonicalEventOf, CanonicalType } from "../events/canonical.js";
import { DURABLE_EVENTS, EPHEMERAL_EVENTS } from "../events/event-definitions.js";
import { NativeOriginSchema } from "../events/event-parts.js";
import { assertType, type Equals } from "./type-equality.js";

type DurableSchemas = typeof DURABLE_EVENTS;
type EphemeralSchemas = typeof EPHEMERAL_EVENTS;

function envelope<T extends string, D extends z.ZodType, Durable extends boolean>(
  type: T,
  data: D,
  durable: Durable,
) {
  return z.object({
    id: z.string(),
    seq: z.number().exactOptional(),
    sessionId: z.string(),
    turnId: z.string().exactOptional(),
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
    ...Object.entries(DURABLE_EVENTS).map(([type, data]) => [type, envelope(type, data, true)]),
    ...Object.entries(EPHEMERAL_EVENTS).map(([type, data]) => [type, envelope(type, data, false)]),
  ];
  // Built from the two maps, key by key: the mapped type is what this object is.
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

// The envelope is written twice, as the generic type `CanonicalEventOf` (events/canonical.ts)
// and as the schema above; these checks make a drift between the two a compile error. The
// payloads are one definition (event-definitions.ts) and need no check.
type EnvelopeMismatch = {
  [T in CanonicalType]: Equals<z.infer<EventSchemas[T]>, CanonicalEventOf<T>> extends true
    ? never
    : T;
}[CanonicalType];
assertType<Equals<EnvelopeMismatch, never>>(true);
// The union as a whole, both ways (mutual assignability: `Equals` is too strict for unions).
const _toCanonical = (event: z.infer<typeof CanonicalEventSchema>): CanonicalEvent => event;
const _fromCanonical = (event: CanonicalEvent): z.infer<typeof CanonicalEventSchema> => event;
