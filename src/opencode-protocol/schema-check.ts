/**
 * A fast yes/no check compiled from a zod schema, for the hot path of the event streams.
 *
 * The zod schemas stay the contract (the docs and the types come from them); what costs on
 * every frame is zod building its output (a copy of every object) and its issue lists, not the
 * checks themselves. A frame that passes needs neither: the frame itself is the value. So each
 * schema is compiled once into a function that accepts exactly what `schema.safeParse` accepts,
 * and zod runs only for a frame the check refuses (to say why).
 *
 * The check is generated code, as zod's own fast path is: one function per schema, with each
 * field read at a site of its own, so that frames of one type (which `JSON.parse` gives one
 * shape) are read as fast as a hand-written check would read them. Where code cannot be
 * generated (`--disallow-code-generation-from-strings`), there is no check and zod parses.
 *
 * Only the part of zod that the wire schemas use is compiled: plain types, literals, enums,
 * optional, nullable, arrays, records, unions, and objects that keep (`looseObject`) or refuse
 * (`strictObject`) unknown keys. Anything else (a refinement, a transform, a default, an
 * object that strips unknown keys, so that its output is not its input) gives `undefined`:
 * such a schema is parsed by zod as before. `schema-check.test.ts` holds the check to zod's
 * answer on recorded frames and on mutations of them.
 */
import type { z } from "zod";
import { util } from "zod/v4/core";

/** True exactly when `schema.safeParse(value).success` would be. */
export type SchemaCheck = (value: unknown) => boolean;

/** The fields of a zod 4 schema definition this reads (its documented `_zod.def`). */
interface Def {
  type: string;
  checks?: readonly unknown[];
  coerce?: boolean;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  element?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  options?: readonly z.ZodType[];
  discriminator?: string;
  unionFallback?: boolean;
  values?: readonly unknown[];
  entries?: Record<string, unknown>;
  mode?: string;
}

const compiled = new WeakMap<z.ZodType, SchemaCheck | null>();

/** The check of `schema`, compiled once; `undefined` when it uses something not compiled. */
export function schemaCheckOf(schema: z.ZodType): SchemaCheck | undefined {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = compile(schema) ?? null;
    compiled.set(schema, check);
  }
  return check ?? undefined;
}

/** The generated function's text, and the values it closes over (`r0`, `r1`, …). */
class Program {
  readonly refs: unknown[] = [];
  #names = 0;

  /** A fresh local name. */
  local(): string {
    return `v${++this.#names}`;
  }

  /** A value the code refers to by name (a helper, a set). */
  ref(value: unknown): string {
    this.refs.push(value);
    return `r${this.refs.length - 1}`;
  }
}

function compile(schema: z.ZodType): SchemaCheck | undefined {
  const program = new Program();
  const body = statements(schema, "v0", program);
  if (body === undefined) return undefined;
  const names = program.refs.map((_, index) => `r${index}`);
  const source = `"use strict"; return function check(v0) { ${body} return true; };`;
  try {
    return new Function(...names, source)(...program.refs) as SchemaCheck;
  } catch {
    return undefined; // code generation is not allowed here: zod parses
  }
}

/**
 * Statements that `return false` unless the value in the local `value` passes `schema`
 * (falling through when it does); `undefined` when the schema uses something not compiled.
 */
function statements(schema: z.ZodType, value: string, program: Program): string | undefined {
  const def = schema._zod.def as Def;
  if ((def.checks?.length ?? 0) > 0 || def.coerce === true) return undefined;
  switch (def.type) {
    case "unknown":
    case "any":
      return "";
    case "string":
      return `if (typeof ${value} !== "string") return false;`;
    case "number":
      // zod's number refuses NaN and the infinities.
      return `if (typeof ${value} !== "number" || !Number.isFinite(${value})) return false;`;
    case "boolean":
      return `if (typeof ${value} !== "boolean") return false;`;
    case "null":
      return `if (${value} !== null) return false;`;
    case "literal":
      return oneOf(def.values ?? [], value, program);
    case "enum": {
      // String enums only: zod drops a numeric enum's reverse mappings, not modelled here.
      const values = Object.values(def.entries ?? {});
      return values.every((entry) => typeof entry === "string")
        ? oneOf(values, value, program)
        : undefined;
    }
    case "optional":
      return wrapped(def.innerType, value, program, (inner) =>
        inner === "" ? "" : `if (${value} !== undefined) { ${inner} }`,
      );
    case "nullable":
      return wrapped(def.innerType, value, program, (inner) =>
        inner === "" ? "" : `if (${value} !== null) { ${inner} }`,
      );
    case "array":
      return arrayStatements(def, value, program);
    case "record":
      return recordStatements(def, value, program);
    case "union":
      return unionStatements(schema, def, value, program);
    case "object":
      return objectStatements(def, value, program);
    default:
      return undefined;
  }
}

function wrapped(
  inner: z.ZodType | undefined,
  value: string,
  program: Program,
  make: (inner: string) => string,
): string | undefined {
  const body = inner === undefined ? undefined : statements(inner, value, program);
  return body === undefined ? undefined : make(body);
}

/** zod compares literals with a `Set` (SameValueZero); strings alone compare as `===`. */
function oneOf(values: readonly unknown[], value: string, program: Program): string {
  if (values.length > 0 && values.every((entry) => typeof entry === "string")) {
    const tests = values.map((entry) => `${value} !== ${JSON.stringify(entry)}`);
    return `if (${tests.join(" && ")}) return false;`;
  }
  return `if (!${program.ref(new Set(values))}.has(${value})) return false;`;
}

function arrayStatements(def: Def, value: string, program: Program): string | undefined {
  if (def.element === undefined) return undefined;
  const item = program.local();
  const inner = statements(def.element, item, program);
  if (inner === undefined) return undefined;
  const isArray = `if (!Array.isArray(${value})) return false;`;
  return inner === "" ? isArray : `${isArray} for (const ${item} of ${value}) { ${inner} }`;
}

/** `z.record(z.string(), z.unknown())`, the only record the wire schemas have. */
function recordStatements(def: Def, value: string, program: Program): string | undefined {
  const keyDef = def.keyType?._zod.def as Def | undefined;
  const valueDef = def.valueType?._zod.def as Def | undefined;
  if (def.mode !== undefined && def.mode !== "strict") return undefined;
  if (keyDef?.type !== "string" || (keyDef.checks?.length ?? 0) > 0) return undefined;
  if (valueDef?.type !== "unknown" && valueDef?.type !== "any") return undefined;
  // A symbol key would fail the string key schema (JSON has none).
  const isRecord = (candidate: unknown): boolean =>
    util.isPlainObject(candidate) && Object.getOwnPropertySymbols(candidate).length === 0;
  return `if (!${program.ref(isRecord)}(${value})) return false;`;
}

function unionStatements(
  schema: z.ZodType,
  def: Def,
  value: string,
  program: Program,
): string | undefined {
  const traits = schema._zod.traits;
  // `z.xor`: exactly one option may pass (not compiled).
  if (traits.has("$ZodXor")) return undefined;
  const options: SchemaCheck[] = [];
  for (const option of def.options ?? []) {
    const check = schemaCheckOf(option);
    if (check === undefined) return undefined;
    options.push(check);
  }
  const anyOf = (candidate: unknown): boolean => options.some((check) => check(candidate));
  if (!traits.has("$ZodDiscriminatedUnion")) {
    return `if (!${program.ref(anyOf)}(${value})) return false;`;
  }
  const discriminated = discriminatedCheck(def, options, anyOf);
  return discriminated === undefined
    ? undefined
    : `if (!${program.ref(discriminated)}(${value})) return false;`;
}

/**
 * zod's discriminated union: an object whose discriminator value names an option passes if
 * that option does; any other value fails (or, with `unionFallback`, passes if any option does).
 */
function discriminatedCheck(
  def: Def,
  options: readonly SchemaCheck[],
  anyOf: SchemaCheck,
): SchemaCheck | undefined {
  const key = def.discriminator;
  if (key === undefined) return undefined;
  // As zod's discriminatorMap: a value two options claim (only `undefined` may be) is null.
  const byValue = new Map<unknown, SchemaCheck | null>();
  for (const [index, option] of (def.options ?? []).entries()) {
    const values = option._zod.propValues?.[key];
    const check = options[index];
    if (values === undefined || values.size === 0 || check === undefined) return undefined;
    for (const claimed of values) byValue.set(claimed, byValue.has(claimed) ? null : check);
  }
  const fallback = def.unionFallback === true;
  return (candidate) => {
    if (typeof candidate !== "object" || candidate === null || Array.isArray(candidate)) {
      return false;
    }
    const tag = (candidate as Record<string, unknown>)[key];
    const option = byValue.get(tag);
    if (option !== undefined && option !== null) return option(candidate);
    return fallback && anyOf(candidate);
  };
}

function objectStatements(def: Def, value: string, program: Program): string | undefined {
  // Without a catchall zod strips unknown keys: its output is not the input, so no fast path.
  const catchall = def.catchall?._zod.def.type;
  if (catchall !== "unknown" && catchall !== "never") return undefined;
  const shape = def.shape ?? {};
  if (Object.getOwnPropertySymbols(shape).length > 0) return undefined;
  const out = [
    `if (typeof ${value} !== "object" || ${value} === null || Array.isArray(${value})) return false;`,
  ];
  for (const [key, schema] of Object.entries(shape)) {
    const { optin, optout } = schema._zod;
    if (optin !== undefined && optin !== "optional") return undefined;
    const field = program.local();
    const inner = statements(schema, field, program);
    if (inner === undefined) return undefined;
    // An absent key is fine when its schema is optional-in and the absence is no issue: it
    // is optional-out too, or it accepts `undefined` (zod's handlePropertyResult).
    const absentOk =
      optin === "optional" &&
      (optout === "optional" || schemaCheckOf(schema)?.(undefined) === true);
    const name = JSON.stringify(key);
    // `in`, as zod: a key present with `undefined` is checked, an absent one is not.
    out.push(
      `if (${name} in ${value}) { const ${field} = ${value}[${name}]; ${inner} }` +
        (absentOk ? "" : " else return false;"),
    );
  }
  if (catchall === "never") {
    const known = program.ref(new Set(Object.keys(shape)));
    out.push(`for (const key in ${value}) if (!${known}.has(key)) return false;`);
  }
  return out.join(" ");
}
