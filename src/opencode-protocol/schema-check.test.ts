/**
 * The compiled checks against zod itself: a frame passes the check exactly when it passes its
 * schema, on every frame the fixtures recorded and on random mutations of them (fields gone,
 * retyped, `null`, `NaN`, other types' names, unknown keys), so the fast path of
 * `parseByType` can never take a frame zod would refuse, nor refuse one zod would take.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { recordedEvents } from "../../test/support/fixture-events.js";
import { fixturePath, readNdjson } from "../../test/support/fixture-files.js";
import { apiEventSchemas } from "./api/events.js";
import { parseByType } from "./common.js";
import { legacyEventSchemas } from "./legacy/events.js";
import { RUN_LINES } from "./run/events.js";
import { schemaCheckOf } from "./schema-check.js";
import { v2EventSchemas } from "./v2/events.js";

type Table = Readonly<Record<string, z.ZodType>>;

const API = "opencode-1.18.33";
const apiTranscripts = [
  "api-bash-tool",
  "api-interrupt-mid-tool",
  "api-permission-always",
  "api-permission-rejected",
  "api-provider-error",
  "api-question-answered",
  "api-question-rejected",
  "api-steer-mid-tool",
  "api-text-turn",
];
const legacyTranscripts = ["legacy-bash-tool", "legacy-permission-once", "legacy-subagent"];
const runOutputs = ["run-text", "run-tool", "run-provider-error", "run-permission-rejected"];

/** Every recorded frame, with the table of its protocol. */
const cases: { table: Table; frame: unknown }[] = [
  ...apiTranscripts.flatMap((name) =>
    recordedEvents(fixturePath(`${API}/${name}.transcript.ndjson`)).map((frame) => ({
      table: apiEventSchemas,
      frame,
    })),
  ),
  ...legacyTranscripts.flatMap((name) =>
    recordedEvents(fixturePath(`${API}/${name}.transcript.ndjson`)).map((frame) => ({
      table: legacyEventSchemas,
      frame,
    })),
  ),
  ...readNdjson("opencode-1.18.5/ping.events.ndjson").map((frame) => ({
    table: legacyEventSchemas,
    frame,
  })),
  ...recordedEvents(fixturePath("opencode-2.0.18/interrupt.transcript.ndjson")).map((frame) => ({
    table: v2EventSchemas,
    frame,
  })),
  ...runOutputs.flatMap((name) =>
    readNdjson(`${API}/${name}.stdout.ndjson`).map((frame) => ({ table: RUN_LINES, frame })),
  ),
];

/** What zod says, and what the check says, of `value` against `schema`. */
function verdicts(schema: z.ZodType, value: unknown): { zod: boolean; check: boolean } {
  const check = schemaCheckOf(schema);
  if (check === undefined) throw new Error("the schema was not compiled");
  return { zod: schema.safeParse(value).success, check: check(value) };
}

describe("schemaCheckOf", () => {
  it("compiles every event schema but the legacy part, whose unknown-part branch transforms", () => {
    const notCompiled = [apiEventSchemas, v2EventSchemas, RUN_LINES, legacyEventSchemas].flatMap(
      (table: Table) =>
        Object.entries(table).flatMap(([type, schema]) =>
          schemaCheckOf(schema) === undefined ? [type] : [],
        ),
    );
    expect(notCompiled).toEqual(["message.part.updated"]);
  });

  it("gives no check for what it cannot answer exactly", () => {
    expect(schemaCheckOf(z.object({ a: z.string() }))).toBeUndefined(); // strips unknown keys
    expect(schemaCheckOf(z.string().min(1))).toBeUndefined();
    expect(schemaCheckOf(z.string().transform((text) => text.length))).toBeUndefined();
    expect(schemaCheckOf(z.looseObject({ a: z.number().default(1) }))).toBeUndefined();
    expect(schemaCheckOf(z.xor([z.string(), z.number()]))).toBeUndefined();
  });

  it.each([
    ["NaN and the infinities are no numbers", z.number(), [1, -0, Number.NaN, Infinity, "1"]],
    ["an array is no object", z.looseObject({}), [{}, [], null, "x"]],
    [
      "a required unknown field must be present",
      z.looseObject({ a: z.unknown() }),
      [{}, { a: undefined }, { a: null }],
    ],
    [
      "an optional field may be absent or undefined",
      z.looseObject({ a: z.string().optional() }),
      [{}, { a: undefined }, { a: "x" }, { a: 1 }],
    ],
    [
      "a strict object refuses unknown keys",
      z.strictObject({ a: z.string() }),
      [{ a: "x" }, { a: "x", b: 1 }],
    ],
    [
      "a record wants a plain object",
      z.record(z.string(), z.unknown()),
      [{}, { a: 1 }, [], new Date(0)],
    ],
    [
      "a discriminated union follows its tag",
      z.discriminatedUnion("k", [
        z.looseObject({ k: z.literal("a"), a: z.string() }),
        z.looseObject({ k: z.literal("b"), b: z.number() }),
      ]),
      [{ k: "a", a: "x" }, { k: "a", b: 1 }, { k: "b", b: 1 }, { k: "c" }, {}, []],
    ],
    ["enums and literals", z.enum(["steer", "queue"]), ["steer", "queue", "STEER", 0]],
  ] as const)("%s, as zod says", (_name, schema, values) => {
    for (const value of values) {
      const { zod, check } = verdicts(schema as z.ZodType, value);
      expect(check, JSON.stringify(value)).toBe(zod);
    }
  });
});

/** Every path to a value inside `value` (the root included). */
function pathsOf(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  const paths = [path];
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      paths.push(...pathsOf(item, [...path, index]));
    });
  } else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, [...path, key]));
  }
  return paths;
}

type Mutation =
  | { kind: "delete"; at: number }
  | { kind: "replace"; at: number; value: unknown }
  | { kind: "add"; at: number; key: string; value: unknown }
  | { kind: "retype"; type: string };

const strange = fc.constantFrom<unknown>(
  null,
  undefined,
  Number.NaN,
  Infinity,
  -0,
  0,
  "",
  true,
  [],
  {},
  "steer",
  "text-0",
);
const replacement = fc.oneof(strange, fc.jsonValue({ maxDepth: 2 }));
const allTypes = [apiEventSchemas, legacyEventSchemas, v2EventSchemas, RUN_LINES].flatMap(
  (table: Table) => Object.keys(table),
);
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("delete" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("replace" as const), at: fc.nat(), value: replacement }),
  fc.record({
    kind: fc.constant("add" as const),
    at: fc.nat(),
    key: fc.constantFrom("extra", "total", "workspaceID", "variant", "files"),
    value: replacement,
  }),
  fc.record({ kind: fc.constant("retype" as const), type: fc.constantFrom(...allTypes) }),
);

/** `frame` (a deep copy) with `mutation` applied at one of its paths. */
function mutate(frame: unknown, mutation: Mutation): unknown {
  if (mutation.kind === "retype") {
    return typeof frame === "object" && frame !== null && !Array.isArray(frame)
      ? { ...frame, type: mutation.type }
      : frame;
  }
  const paths = pathsOf(frame);
  const path = paths[mutation.at % paths.length] ?? [];
  if (path.length === 0) {
    return mutation.kind === "replace" ? mutation.value : frame;
  }
  const root = structuredClone(frame) as Record<string | number, unknown>;
  let parent = root;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  const last = path.at(-1) as string | number;
  if (mutation.kind === "delete") {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else if (mutation.kind === "replace") {
    parent[last] = mutation.value;
  } else {
    const target = parent[last];
    if (typeof target === "object" && target !== null && !Array.isArray(target)) {
      (target as Record<string, unknown>)[mutation.key] = mutation.value;
    }
  }
  return root;
}

describe("parseByType's fast path on recorded frames", () => {
  it("has recorded frames of each protocol to mutate", () => {
    for (const table of [apiEventSchemas, legacyEventSchemas, v2EventSchemas, RUN_LINES]) {
      expect(cases.filter((entry) => entry.table === table).length).toBeGreaterThan(10);
    }
  });

  it("takes every recorded frame zod takes, and no other", () => {
    for (const { table, frame } of cases) {
      const type = (frame as { type: string }).type;
      const schema = table[type];
      if (schema === undefined || schemaCheckOf(schema) === undefined) continue;
      const { zod, check } = verdicts(schema, frame);
      expect(check, type).toBe(zod);
    }
  });

  it("agrees with zod on mutated frames, and a refused frame carries zod's issues", () => {
    fc.assert(
      fc.property(
        fc.nat({ max: cases.length - 1 }),
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        (index, mutations) => {
          const { table, frame } = cases[index] as (typeof cases)[number];
          const mutated = mutations.reduce(mutate, frame);
          // Against the schema of the type it was recorded with, and of the type it has now.
          const types = new Set([(frame as { type: string }).type]);
          const now = (mutated as { type?: unknown } | null)?.type;
          if (typeof now === "string") types.add(now);
          for (const type of types) {
            const schema = table[type];
            if (schema === undefined || schemaCheckOf(schema) === undefined) continue;
            const { zod, check } = verdicts(schema, mutated);
            expect(check).toBe(zod);
          }
          let parsed: ReturnType<typeof parseByType>;
          try {
            parsed = parseByType(table, mutated, "a mutated frame");
          } catch {
            return; // no string type: refused before any schema, as before
          }
          const schema = typeof now === "string" ? table[now] : undefined;
          const result = schema?.safeParse(mutated);
          expect(parsed.known).toBe(result?.success ?? false);
          if (!parsed.known && result !== undefined && !result.success) {
            expect(parsed.issues).toEqual(result.error.issues);
          }
        },
      ),
      { numRuns: 3_000 },
    );
  });
});
