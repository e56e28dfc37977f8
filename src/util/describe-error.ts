/** One-line descriptions of thrown values, for log fields and error messages. */

/**
 * The message, with the error code when the message does not already say it, and the
 * cause's message (undici's "fetch failed" hides ECONNREFUSED there).
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = "code" in error && typeof error.code === "string" ? error.code : undefined;
  const message =
    code === undefined || error.message.includes(code)
      ? error.message
      : `${error.message} (${code})`;
  const cause: unknown = error.cause;
  return cause instanceof Error ? `${message}: ${describeError(cause)}` : message;
}
