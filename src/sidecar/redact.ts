/** Keeps secrets out of log lines: the token, tickets, passwords, authorization headers. */
import type { Logger } from "../util/logger.js";

const SECRET_KEYS = /^(authorization|token|ticket|password|secret|cookie|set-cookie|api[-_]?key)$/i;
const SECRET_PARAMS = ["ticket", "token", "password", "access_token"];

/** `url` with the values of secret query parameters replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  const query = url.indexOf("?");
  if (query < 0) return url;
  const params = new URLSearchParams(url.slice(query + 1));
  for (const name of SECRET_PARAMS) {
    if (params.has(name)) params.set(name, "[redacted]");
  }
  return `${url.slice(0, query)}?${params.toString()}`;
}

/** A copy of `fields` with secret-named keys redacted, at any depth (bounded), and `secret` itself wherever it appears. */
export function redactFields(
  fields: Record<string, unknown>,
  secrets: readonly string[],
): Record<string, unknown> {
  return redactValue(fields, secrets, 0) as Record<string, unknown>;
}

function redactValue(value: unknown, secrets: readonly string[], depth: number): unknown {
  if (typeof value === "string") return redactText(value, secrets);
  if (value instanceof Error) {
    return { name: value.name, message: redactText(value.message, secrets) };
  }
  if (typeof value !== "object" || value === null || depth > 5) return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    copy[key] = SECRET_KEYS.test(key) ? "[redacted]" : redactValue(item, secrets, depth + 1);
  }
  return copy;
}

function redactText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length >= 8) result = result.split(secret).join("[redacted]");
  }
  return result;
}

/** `logger` with every line's fields redacted, and `secrets` removed from messages too. */
export function redactingLogger(logger: Logger, secrets: readonly string[]): Logger {
  const wrap =
    (write: Logger["info"]): Logger["info"] =>
    (message, fields) =>
      write(
        redactText(message, secrets),
        fields === undefined ? undefined : redactFields(fields, secrets),
      );
  return {
    debug: wrap(logger.debug.bind(logger)),
    info: wrap(logger.info.bind(logger)),
    warn: wrap(logger.warn.bind(logger)),
    error: wrap(logger.error.bind(logger)),
  };
}
