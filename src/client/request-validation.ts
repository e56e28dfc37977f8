/** Strict validation of what the client is about to send. */
import type { z } from "zod";
import { UsageError } from "../errors.js";

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
  const problems = result.error.issues
    .map((issue) => `${issue.path.map(String).join(".") || "(body)"}: ${issue.message}`)
    .join("; ");
  throw new UsageError(`invalid input for ${operation}: ${problems}`, { cause: result.error });
}
