import { isRecord } from "../../util/is-record.js";
import { RELATIVE_WORK } from "./sanitize.js";

/**
 * Matching a recorded call against the call the client makes now, and rewriting recorded
 * frames for the run at hand.
 *
 * - Objects match as a subset: every recorded key must be there and match; extra keys are fine
 *   (a newer client may send more).
 * - Arrays match element by element and must have the same length.
 * - `"<any>"` matches anything; `"<work>"` and `"<workspace>"` stand for the replay's directory,
 *   wherever they appear in a string (`"<work>/src/a.ts"`, `"cannot read <work>/a"`).
 * - Ids the client chooses itself (under the keys in `CLIENT_ID_KEYS`) match any id with the same
 *   prefix (`msg_…`); the pair is remembered (one new id per recorded id, and the other way
 *   round), and later frames get the new id.
 */

export const ANY = "<any>";
export const DIRECTORY_PLACEHOLDERS = ["<work>", "<workspace>"] as const;
/** Keys under which the client, not the server, chooses the id. */
export const CLIENT_ID_KEYS: readonly string[] = ["id", "messageID", "partID"];

export interface MatchContext {
  directory: string;
  /** Recorded client-chosen id -> the id chosen in this run. Filled as calls match. */
  remaps: Map<string, string>;
}

export interface Mismatch {
  /** Where in the input the values differ (`input.prompt.text`). */
  path: string;
  expected: unknown;
  actual: unknown;
}

/** `undefined` when `actual` matches `expected`, else where and how it does not. */
export function findMismatch(
  expected: unknown,
  actual: unknown,
  context: MatchContext,
  path = "",
): Mismatch | undefined {
  if (expected === ANY) return undefined;
  if (typeof expected === "string") {
    const resolved = withDirectory(expected, context.directory);
    return resolved === actual ? undefined : { path, expected, actual };
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      return { path, expected, actual };
    }
    for (const [index, item] of expected.entries()) {
      const found = findMismatch(item, actual[index], context, `${path}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (isRecord(expected)) {
    if (!isRecord(actual)) return { path, expected, actual };
    for (const [key, value] of Object.entries(expected)) {
      const at = path === "" ? key : `${path}.${key}`;
      if (!(key in actual)) return { path: at, expected: value, actual: undefined };
      if (CLIENT_ID_KEYS.includes(key) && isRemappableId(value, actual[key], context)) continue;
      const found = findMismatch(value, actual[key], context, at);
      if (found) return found;
    }
    return undefined;
  }
  return Object.is(expected, actual) ? undefined : { path, expected, actual };
}

/** Recorded values as they must read in this run: placeholders and remapped ids replaced. */
export function rewriteForRun(value: unknown, context: MatchContext): unknown {
  if (typeof value === "string") {
    return context.remaps.get(value) ?? withDirectory(value, context.directory);
  }
  if (Array.isArray(value)) return value.map((item) => rewriteForRun(item, context));
  if (isRecord(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, rewriteForRun(item, context)]),
    );
  }
  return value;
}

function isRemappableId(expected: unknown, actual: unknown, context: MatchContext): boolean {
  if (typeof expected !== "string" || typeof actual !== "string") return false;
  const known = context.remaps.get(expected);
  if (known !== undefined) return known === actual;
  const prefix = /^[a-z]+_/.exec(expected)?.[0];
  if (prefix === undefined || !actual.startsWith(prefix)) return false;
  // Two recorded ids are two things; one new id for both would merge them in later frames.
  for (const chosen of context.remaps.values()) if (chosen === actual) return false;
  context.remaps.set(expected, actual);
  return true;
}

/** Puts the directory where a recording has a placeholder (the recorder replaces it anywhere in a string). */
function withDirectory(value: string, directory: string): string {
  if (value === RELATIVE_WORK || value.startsWith(`${RELATIVE_WORK}/`)) {
    return directory.replace(/^\//, "") + value.slice(RELATIVE_WORK.length);
  }
  if (!value.includes("<work") && !value.includes("%3Cwork")) return value;
  let result = value;
  for (const placeholder of DIRECTORY_PLACEHOLDERS) {
    result = result
      .replaceAll(placeholder, directory)
      .replaceAll(encodeURIComponent(placeholder), encodeURIComponent(directory));
  }
  return result;
}
