/** Strict validation of what the client is about to send. */
import type { z } from "zod";
import { formatIssues, UsageError } from "../errors.js";

/**
 * Validates a request body; a bad one is the caller's mistake, so it becomes a UsageError
 * that says which field was wrong, before anything is sent.
 */
export function parseRequest<S extends z.ZodType>(
  schema: S,
  input: unknown,
  operation: string,
): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new UsageError(
    `invalid input for ${operation}: ${formatIssues(result.error.issues, "(body)")}`,
    { cause: result.error },
  );
}
