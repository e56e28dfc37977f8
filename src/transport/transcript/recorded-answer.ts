/**
 * What a recorded `sdk.response` means for the call it answers: the value, an HTTP error as
 * the client would have read it, or no answer at all.
 */
import { apiErrorFrom } from "../api-error.js";
import { type MatchContext, rewriteForRun } from "./structural-match.js";

/** The recorded answer meaning "the server never answered". */
export const HANG = "<hang>";

/** How a recorded answer settles its call. */
export type RecordedAnswer =
  | { kind: "value"; value: unknown }
  | { kind: "error"; error: Error }
  | { kind: "hang" };

/**
 * The answer `data` (recorded for `operation`) gives in this run: rewritten for the run's
 * directory and ids; `null` is no body; `{status, body}` with status ≥ 400 is an HTTP error.
 */
export function recordedAnswer(
  data: unknown,
  operation: string,
  context: MatchContext,
): RecordedAnswer {
  // Never answered: the caller's bound or signal ends the call.
  if (data === HANG) return { kind: "hang" };
  if (data === null) return { kind: "value", value: undefined };
  if (!isRecordedHttpError(data)) return { kind: "value", value: rewriteForRun(data, context) };
  const body = rewriteForRun(data.body, context);
  // No body (recorded as null) reads as an empty text, as it does over HTTP.
  const text = typeof body === "string" ? body : body === null ? "" : JSON.stringify(body);
  return { kind: "error", error: apiErrorFrom(data.status, "", `replay:${operation}`, text) };
}

function isRecordedHttpError(data: unknown): data is { status: number; body: unknown } {
  if (typeof data !== "object" || data === null || Array.isArray(data)) return false;
  const keys = Object.keys(data).sort();
  const status = (data as { status?: unknown }).status;
  return (
    keys.length === 2 &&
    keys[0] === "body" &&
    keys[1] === "status" &&
    typeof status === "number" &&
    status >= 400
  );
}
