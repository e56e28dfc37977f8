/**
 * Request bodies that are wrong, each against a route's own zod schema (the one the sidecar
 * validates with): text that is not JSON, and JSON that the schema refuses (another type, a
 * field missing, a field unknown, a value of the wrong type). A body the schema would accept
 * is filtered out, so that every one generated has one documented answer.
 */
import fc from "fast-check";
import type { z } from "zod";
import {
  CreateSessionBodySchema,
  PermissionReplyBodySchema,
  QuestionAnswerBodySchema,
  RenameSessionBodySchema,
  SendInputBodySchema,
  SwitchModelBodySchema,
} from "../../../src/wire/http.js";

/** A route that takes a JSON body, with a body it accepts (the seed of the wrong ones). */
export interface JsonRoute {
  method: "POST" | "PATCH";
  /** The path for a session id (unused by the routes outside a session). */
  path(sessionId: string): string;
  schema: z.ZodType;
  valid: Record<string, unknown>;
}

export const JSON_ROUTES: readonly JsonRoute[] = [
  {
    method: "POST",
    path: () => "/v1/sessions",
    schema: CreateSessionBodySchema,
    valid: { title: "fuzzed" },
  },
  {
    method: "PATCH",
    path: (id) => `/v1/sessions/${id}`,
    schema: RenameSessionBodySchema,
    valid: { title: "fuzzed" },
  },
  {
    method: "POST",
    path: (id) => `/v1/sessions/${id}/inputs`,
    schema: SendInputBodySchema,
    valid: { text: "[[reply fuzzed]]", delivery: "queue" },
  },
  {
    method: "POST",
    path: (id) => `/v1/sessions/${id}/model`,
    schema: SwitchModelBodySchema,
    valid: { providerID: "demo", modelID: "demo-1" },
  },
  {
    method: "POST",
    path: (id) => `/v1/sessions/${id}/permissions/per_fuzzed`,
    schema: PermissionReplyBodySchema,
    valid: { reply: "once" },
  },
  {
    method: "POST",
    path: (id) => `/v1/sessions/${id}/questions/que_fuzzed`,
    schema: QuestionAnswerBodySchema,
    valid: { answers: [["a"]] },
  },
];

/** Whether `text` is JSON. */
export function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Text that is not JSON: a valid body cut short, or JSON-looking garbage. */
export function notJsonArbitrary(route: JsonRoute): fc.Arbitrary<string> {
  const whole = JSON.stringify(route.valid);
  return fc
    .oneof(
      // Every strict prefix of an object's text is unfinished (the empty one included).
      fc.nat({ max: whole.length - 1 }).map((cut) => whole.slice(0, cut)),
      fc.string({ maxLength: 40 }).map((tail) => `{${tail}`),
      fc.string({ minLength: 1, maxLength: 40 }),
      fc.constantFrom("{'text':'x'}", '{"text":"x",}', "[1,2", "nul", "{\u0000}", '{"a":1}}'),
    )
    .filter((text) => !parses(text));
}

const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 20 }),
  fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 5 })), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
  fc.string({ minLength: 201, maxLength: 600 }),
);

/** JSON the route's schema refuses. */
export function wrongTypesArbitrary(route: JsonRoute): fc.Arbitrary<string> {
  const keys = Object.keys(route.valid);
  const known = [...keys, "idempotencyKey", "attachments", "message", "directory", "model"];
  const body = fc.oneof(
    // Not an object at all.
    fc.oneof(
      fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
      fc.integer(),
      fc.string({ maxLength: 10 }),
      fc.boolean(),
      fc.constant(null),
    ),
    // A field of the wrong type (a known field, or one the route also takes).
    fc
      .tuple(fc.constantFrom(...known), wrongValue)
      .map(([key, value]) => ({ ...route.valid, [key]: value })),
    // A field it does not know (the schemas are strict).
    fc
      .tuple(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 1 }))
      .map(([key, value]) => ({ ...route.valid, [key]: value })),
    // A required field missing.
    fc.constantFrom(...keys).map((key) => {
      const copy: Record<string, unknown> = { ...route.valid };
      delete copy[key];
      return copy;
    }),
  );
  return body
    .map((value) => JSON.stringify(value) ?? "null")
    .filter((text) => !route.schema.safeParse(JSON.parse(text)).success);
}
