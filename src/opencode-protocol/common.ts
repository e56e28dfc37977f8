/**
 * Building blocks shared by the wire schemas. Server output is parsed leniently
 * (`z.looseObject`: unknown fields pass through) because OpenCode adds fields in
 * minor versions; what we send is strict (`z.strictObject`) so a typo fails here,
 * not as a silent 400 or, worse, a silently ignored field.
 */
import { z } from "zod";
import { ProtocolError, type ProtocolIssue } from "../errors.js";
import { type SchemaCheck, schemaCheckOf } from "./schema-check.js";

/** A model as the wire names it (`id`, not the canonical `modelID`: see `ModelRef` in the root entry). */
export const WireModelRef = z.looseObject({
  id: z.string(),
  providerID: z.string(),
  variant: z.string().optional(),
});
export type WireModelRef = z.infer<typeof WireModelRef>;

export const Tokens = z.looseObject({
  input: z.number(),
  output: z.number(),
  reasoning: z.number(),
  cache: z.looseObject({ read: z.number(), write: z.number() }),
  total: z.number().optional(),
});
export type Tokens = z.infer<typeof Tokens>;

export const LocationRef = z.looseObject({
  directory: z.string(),
  workspaceID: z.string().optional(),
});

/** `{type, message}` errors of the newer surfaces. */
export const ErrorInfo = z.looseObject({ type: z.string(), message: z.string() });

/** Validates `value` or throws a ProtocolError naming `what` and the zod issues. */
export function parseWire<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ProtocolError(what, result.error.issues, value);
  return result.data;
}

/**
 * An event whose type we know and validated, or one passed through untouched so nothing
 * is dropped (the canonical layer maps it to `native.unknown`): either its type is new to
 * us, or it is a known type that no longer matches our schema (`issues` says how).
 */
export type Parsed<Known> =
  | { known: true; event: Known }
  | {
      known: false;
      event: { type: string } & Record<string, unknown>;
      issues?: readonly ProtocolIssue[];
    };

const Envelope = z.looseObject({ type: z.string() });

/**
 * Parses an event frame against a table of schemas keyed by event type. A frame without a
 * string `type` is a ProtocolError; a frame that fails its type's schema is passed through as
 * not known, with the issues, because one odd event must not end a whole stream.
 *
 * A frame is checked by the check compiled from its schema (schema-check.ts), which accepts
 * exactly what the schema does: one that passes is the value itself, uncopied (the schemas
 * keep unknown fields, so zod's output would be an equal copy). zod parses only the frames
 * the check refuses, and those the compiler does not cover, so that the issues are zod's.
 */
export function parseByType<Known>(
  table: Readonly<Record<string, z.ZodType>>,
  raw: unknown,
  what: string,
): Parsed<Known> {
  if (!isEnvelope(raw)) parseWire(Envelope, raw, what); // throws, with zod's issues
  const envelope = raw as { type: string } & Record<string, unknown>;
  const entry = indexOf(table).get(envelope.type);
  if (entry === undefined) return { known: false, event: envelope };
  if (entry.check?.(raw) === true) return { known: true, event: raw as Known };
  const result = entry.schema.safeParse(raw);
  if (!result.success) return { known: false, event: envelope, issues: result.error.issues };
  return { known: true, event: result.data as Known };
}

interface TableEntry {
  schema: z.ZodType;
  check: SchemaCheck | undefined;
}

const indexes = new WeakMap<Readonly<Record<string, z.ZodType>>, Map<string, TableEntry>>();

/** A table's schemas and their checks by type, compiled at its first frame. */
function indexOf(table: Readonly<Record<string, z.ZodType>>): Map<string, TableEntry> {
  let index = indexes.get(table);
  if (index === undefined) {
    // Own keys only (a Map): a frame typed "constructor" is not a known event.
    index = new Map(
      Object.entries(table).map(([type, schema]) => [
        type,
        { schema, check: schemaCheckOf(schema) },
      ]),
    );
    indexes.set(table, index);
  }
  return index;
}

/** What `Envelope` accepts: an object (not an array) with a string `type`. */
function isEnvelope(raw: unknown): boolean {
  return (
    typeof raw === "object" &&
    raw !== null &&
    !Array.isArray(raw) &&
    typeof (raw as { type?: unknown }).type === "string"
  );
}

/**
 * The payload of an `/api` response. Those routes wrap it in `{data}`, and reading the
 * payload unwrapped yields `undefined` silently (seed 001), so a missing wrapper is a
 * protocol error, not a guess.
 */
export function unwrapApiData(body: unknown, what: string): unknown {
  if (typeof body === "object" && body !== null && "data" in body) {
    return (body as { data: unknown }).data;
  }
  throw new ProtocolError(
    what,
    [{ path: ["data"], message: "expected the /api {data} wrapper" }],
    body,
  );
}

/** One entry of a session's todo list (`status`: pending, in_progress, completed, cancelled). */
export const Todo = z.looseObject({
  content: z.string(),
  status: z.string(),
  priority: z.string(),
});
export type Todo = z.infer<typeof Todo>;
