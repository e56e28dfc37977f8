/**
 * The parts the canonical events share (usage, an error, a model, a connection's state) and the
 * envelope's `native` origin, as zod schemas: their TypeScript types are derived from these
 * (`canonical.ts`), and the wire validates with them.
 */
import { z } from "zod";

const optionalString = () => z.string().exactOptional();

export const OutcomeSchema = z.enum(["completed", "interrupted", "failed"]);

export const UsageSchema = z.object({
  tokens: z.object({
    input: z.number(),
    output: z.number(),
    reasoning: z.number(),
    cacheRead: z.number(),
    cacheWrite: z.number(),
  }),
  cost: z.number(),
});

export const ErrorInfoSchema = z.object({
  /** A short machine-readable kind (`aborted`, `provider`, `stalled`, …). */
  kind: z.string(),
  message: z.string(),
});

/** A model, canonically: `{ providerID: "anthropic", modelID: "claude-sonnet-4" }`. */
export const ModelRefSchema = z.object({ providerID: z.string(), modelID: z.string() });

/**
 * A changed file: its path relative to the session's directory, how it changed and how many
 * lines it adds and removes. The diff itself is the changes view's (`Session.changes`).
 */
export const FileChangeSchema = z.object({
  path: z.string(),
  status: z.enum(["added", "modified", "deleted"]),
  additions: z.number().int(),
  deletions: z.number().int(),
});

/** A file an undo (or redo) puts back, as OpenCode's revert reports it. */
export const RevertedFileSchema = FileChangeSchema;

/**
 * One entry of a session's todo list, as the agent's `todowrite` tool wrote it (model output:
 * shown, never obeyed). `status` is OpenCode's: pending, in_progress, completed, cancelled.
 */
export const TodoSchema = z.object({
  content: z.string(),
  status: z.string(),
  priority: z.string(),
});

/**
 * Whether a session's native streams reach the server. `reconnecting` since the first failed
 * attempt of an outage, with the count of failed attempts in a row; `connected` since it ended.
 */
export const ConnectionStateSchema = z.object({
  state: z.enum(["connected", "reconnecting"]),
  /** Milliseconds since the epoch. */
  since: z.number(),
  attempt: z.number(),
  /** Why the last attempt failed (while reconnecting). */
  reason: optionalString(),
});

/** Where a canonical event came from, for debugging. */
export const NativeOriginSchema = z.object({
  backend: z.enum(["serve", "serve-legacy", "subprocess", "replay"]),
  type: z.string(),
  seq: z.number().exactOptional(),
  id: optionalString(),
});
