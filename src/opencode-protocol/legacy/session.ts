/** Sessions, messages and requests of the legacy surface (`/session`, bare JSON bodies). */
import { z } from "zod";
import { Tokens } from "../common.js";
import { Part } from "./parts.js";

export const PermissionRule = z.strictObject({
  permission: z.string(),
  pattern: z.string(),
  action: z.enum(["allow", "deny", "ask"]),
});
export type PermissionRule = z.infer<typeof PermissionRule>;

/** `POST /session/{id}/summarize` body: the model that writes the summary. */
export const SummarizeRequest = z.strictObject({
  providerID: z.string(),
  modelID: z.string(),
  auto: z.boolean().optional(),
});

/** `POST /session` body. */
export const SessionCreateRequest = z.strictObject({
  title: z.string().optional(),
  parentID: z.string().optional(),
  permission: z.array(PermissionRule).optional(),
});
export type SessionCreateRequest = z.infer<typeof SessionCreateRequest>;

export const Session = z.looseObject({
  id: z.string(),
  projectID: z.string(),
  directory: z.string(),
  title: z.string(),
  version: z.string(),
  parentID: z.string().optional(),
  time: z.looseObject({ created: z.number(), updated: z.number() }),
});
export type Session = z.infer<typeof Session>;

export const TextPartInput = z.strictObject({
  id: z.string().optional(),
  type: z.literal("text"),
  text: z.string(),
  synthetic: z.boolean().optional(),
});
export const FilePartInput = z.strictObject({
  id: z.string().optional(),
  type: z.literal("file"),
  mime: z.string(),
  url: z.string(),
  filename: z.string().optional(),
});
export const AgentPartInput = z.strictObject({
  id: z.string().optional(),
  type: z.literal("agent"),
  name: z.string(),
});
export const PartInput = z.discriminatedUnion("type", [
  TextPartInput,
  FilePartInput,
  AgentPartInput,
]);
export type PartInput = z.infer<typeof PartInput>;

/** `POST /session/{id}/message` and `/prompt_async` body. */
export const PromptRequest = z.strictObject({
  messageID: z.string().optional(),
  model: z.strictObject({ providerID: z.string(), modelID: z.string() }).optional(),
  agent: z.string().optional(),
  system: z.string().optional(),
  parts: z.array(PartInput).min(1),
});
export type PromptRequest = z.infer<typeof PromptRequest>;

export const UserMessage = z.looseObject({
  id: z.string(),
  sessionID: z.string(),
  role: z.literal("user"),
  time: z.looseObject({ created: z.number() }),
});
export const AssistantMessage = z.looseObject({
  id: z.string(),
  sessionID: z.string(),
  role: z.literal("assistant"),
  parentID: z.string(),
  modelID: z.string(),
  providerID: z.string(),
  cost: z.number(),
  tokens: Tokens,
  finish: z.string().optional(),
  error: z.unknown().optional(),
  time: z.looseObject({ created: z.number(), completed: z.number().optional() }),
});
export const Message = z.discriminatedUnion("role", [UserMessage, AssistantMessage]);
export type Message = z.infer<typeof Message>;

/** A message with its parts, as `GET /session/{id}/message` and the blocking prompt return it. */
export const MessageWithParts = z.looseObject({ info: Message, parts: z.array(Part) });
export type MessageWithParts = z.infer<typeof MessageWithParts>;

export const SessionStatus = z.looseObject({
  type: z.enum(["idle", "busy", "retry"]),
  attempt: z.number().optional(),
  message: z.string().optional(),
});
export type SessionStatus = z.infer<typeof SessionStatus>;

export const PermissionRequest = z.looseObject({
  id: z.string(),
  sessionID: z.string(),
  permission: z.string(),
  patterns: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  always: z.array(z.string()),
  tool: z.looseObject({ messageID: z.string(), callID: z.string() }).optional(),
});
export type PermissionRequest = z.infer<typeof PermissionRequest>;

/** `POST /permission/{id}/reply` body. */
export const PermissionReplyRequest = z.strictObject({
  reply: z.enum(["once", "always", "reject"]),
  message: z.string().optional(),
});

export const QuestionRequest = z.looseObject({
  id: z.string(),
  sessionID: z.string(),
  questions: z.array(z.looseObject({ question: z.string() })),
  tool: z.looseObject({ messageID: z.string(), callID: z.string() }).optional(),
});
export type QuestionRequest = z.infer<typeof QuestionRequest>;

/** `POST /question/{id}/reply` body: one list of chosen labels per question. */
export const QuestionReplyRequest = z.strictObject({ answers: z.array(z.array(z.string())) });

/**
 * `GET /config/providers`: the providers the config and credentials make usable, each with its
 * models by id. The route answers once the server has loaded them (no partial list).
 */
export const ConfigProviders = z.looseObject({
  providers: z.array(z.looseObject({ id: z.string(), models: z.record(z.string(), z.unknown()) })),
});

export const Health = z.looseObject({ healthy: z.literal(true), version: z.string().optional() });
