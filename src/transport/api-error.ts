/** Reads a non-2xx response into an `OpencodeApiError`. */
import { OpencodeApiError } from "../errors.js";
import { isRecord } from "../util/is-record.js";

/** Builds the error for a failed response whose body text has already been read. */
export function apiErrorFrom(
  status: number,
  statusText: string,
  url: string,
  text: string,
): OpencodeApiError {
  const body = parseJsonOrText(text);
  const { name, message } = describeErrorBody(body);
  return new OpencodeApiError({
    status,
    errorName: name ?? `HTTP ${status}`,
    message: message ?? (statusText || "no message"),
    body,
    url,
  });
}

function parseJsonOrText(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

// OpenCode has used several error shapes: `{name, data: {message}}` (named errors),
// `{error: {message}}`, `{message}`, and `{_tag, message}` on the effect-based /api routes.
function describeErrorBody(body: unknown): { name?: string; message?: string } {
  if (typeof body === "string") return { message: body.slice(0, 500) };
  if (!isRecord(body)) return {};
  const inner = isRecord(body.error) ? body.error : body;
  const data = isRecord(inner.data) ? inner.data : {};
  const name = firstString(inner.name, inner._tag, inner.type, body.name);
  const message = firstString(data.message, inner.message, body.message);
  return {
    ...(name === undefined ? {} : { name }),
    ...(message === undefined ? {} : { message }),
  };
}

function firstString(...values: unknown[]): string | undefined {
  return values.find((value): value is string => typeof value === "string" && value.length > 0);
}
