/**
 * `opencode run --format json` output: one JSON object per line, each a whole part once it is
 * finished (no deltas). Seen in 1.18.33: `step_start`, `reasoning` (with `--thinking`),
 * `text`, `tool_use` (only once the tool completed or failed), `step_finish`, `error`.
 */
import { z } from "zod";
import { type Parsed, parseByType, Tokens } from "../common.js";

const Line = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.looseObject({ type: z.literal(type), timestamp: z.number(), sessionID: z.string(), ...shape });

const PartRef = { id: z.string(), messageID: z.string() };

const ToolState = z.discriminatedUnion("status", [
  z.looseObject({
    status: z.literal("completed"),
    input: z.record(z.string(), z.unknown()),
    output: z.string(),
    title: z.string().optional(),
  }),
  z.looseObject({
    status: z.literal("error"),
    input: z.record(z.string(), z.unknown()),
    error: z.string(),
  }),
]);

export const RUN_LINES = {
  step_start: Line("step_start", { part: z.looseObject(PartRef) }),
  step_finish: Line("step_finish", {
    part: z.looseObject({ ...PartRef, reason: z.string(), tokens: Tokens, cost: z.number() }),
  }),
  text: Line("text", { part: z.looseObject({ ...PartRef, text: z.string() }) }),
  reasoning: Line("reasoning", { part: z.looseObject({ ...PartRef, text: z.string() }) }),
  tool_use: Line("tool_use", {
    part: z.looseObject({ ...PartRef, callID: z.string(), tool: z.string(), state: ToolState }),
  }),
  error: Line("error", { error: z.unknown() }),
} as const;

export type RunLine = {
  [K in keyof typeof RUN_LINES]: z.infer<(typeof RUN_LINES)[K]>;
}[keyof typeof RUN_LINES];

/** Parses one output line (already JSON-decoded); a line of a type we do not know passes through. */
export function parseRunLine(raw: unknown): Parsed<RunLine> {
  return parseByType<RunLine>(RUN_LINES, raw, "an `opencode run --format json` line");
}
