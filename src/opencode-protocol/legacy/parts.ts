/** Message parts of the legacy surface (`message.part.updated` snapshots and message lists). */
import { z } from "zod";
import { Tokens } from "../common.js";

const partBase = { id: z.string(), sessionID: z.string(), messageID: z.string() };
const time = z.looseObject({ start: z.number(), end: z.number().optional() });

export const TextPart = z.looseObject({
  ...partBase,
  type: z.literal("text"),
  text: z.string(),
  synthetic: z.boolean().optional(),
  time: time.optional(),
});
export const ReasoningPart = z.looseObject({
  ...partBase,
  type: z.literal("reasoning"),
  text: z.string(),
  time: time.optional(),
});

export const ToolState = z.discriminatedUnion("status", [
  z.looseObject({ status: z.literal("pending"), input: z.record(z.string(), z.unknown()) }),
  z.looseObject({
    status: z.literal("running"),
    input: z.record(z.string(), z.unknown()),
    title: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  }),
  z.looseObject({
    status: z.literal("completed"),
    input: z.record(z.string(), z.unknown()),
    output: z.string(),
    title: z.string(),
    metadata: z.record(z.string(), z.unknown()),
  }),
  z.looseObject({
    status: z.literal("error"),
    input: z.record(z.string(), z.unknown()),
    error: z.string(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  }),
]);
export type ToolState = z.infer<typeof ToolState>;

export const ToolPart = z.looseObject({
  ...partBase,
  type: z.literal("tool"),
  callID: z.string(),
  tool: z.string(),
  state: ToolState,
});
export const StepStartPart = z.looseObject({ ...partBase, type: z.literal("step-start") });
export const StepFinishPart = z.looseObject({
  ...partBase,
  type: z.literal("step-finish"),
  reason: z.string(),
  cost: z.number(),
  tokens: Tokens,
});
export const FilePart = z.looseObject({
  ...partBase,
  type: z.literal("file"),
  mime: z.string(),
  url: z.string(),
  filename: z.string().optional(),
});
export const AgentPart = z.looseObject({ ...partBase, type: z.literal("agent"), name: z.string() });
export const SubtaskPart = z.looseObject({
  ...partBase,
  type: z.literal("subtask"),
  prompt: z.string(),
  description: z.string(),
  agent: z.string(),
});
export const PatchPart = z.looseObject({
  ...partBase,
  type: z.literal("patch"),
  hash: z.string(),
  files: z.array(z.string()),
});

const knownParts = [
  TextPart,
  ReasoningPart,
  ToolPart,
  StepStartPart,
  StepFinishPart,
  FilePart,
  AgentPart,
  SubtaskPart,
  PatchPart,
] as const;

/** Part types this version knows; any other `type` passes through as an unknown part. */
export const KNOWN_PART_TYPES = [
  "text",
  "reasoning",
  "tool",
  "step-start",
  "step-finish",
  "file",
  "agent",
  "subtask",
  "patch",
] as const;

/**
 * A part of a type this version does not know. It is kept whole under `raw`, and its
 * `type` is rewritten to "unknown" so that narrowing on `part.type` stays exact for the
 * known types (a plain `type: string` member would swallow every narrowing).
 */
const UnknownPart = z
  .looseObject({
    ...partBase,
    type: z.string().refine((type) => !(KNOWN_PART_TYPES as readonly string[]).includes(type)),
  })
  .transform((raw) => ({ type: "unknown" as const, nativeType: raw.type, raw }));
export type UnknownPart = z.output<typeof UnknownPart>;

export const Part = z.union([z.discriminatedUnion("type", knownParts), UnknownPart]);
export type Part = z.output<typeof Part>;
