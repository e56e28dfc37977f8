/**
 * `GET /v1/sessions/:id/live`: a session as a live chat view starts from it — what
 * `liveConversationOf` folds from its durable events (the conversation, queued inputs, waiting
 * asks, the running turn, models and agent, todos, each turn's files, what it spent), at the
 * transcript's last seq. A client opening a long session reads this instead of the transcript:
 * it is the size of the conversation, not of its events, and it needs no fold; it then
 * subscribes after `conversation.lastSeq`. Only what the durable events give is in it: the
 * text streaming now comes with the subscription (its catch-up delta), the running turn's usage
 * with its next `usage.updated`.
 */
import { z } from "zod";
import {
  FileChangeSchema,
  ModelRefSchema,
  TodoSchema,
  UsageSchema,
} from "../events/event-parts.js";
import { ConversationSchema } from "./http.js";

const TurnFilesSchema = z.object({
  files: z.array(FileChangeSchema),
  moreFiles: z.number().int().exactOptional(),
});

export const LiveSnapshotSchema = z.object({
  conversation: ConversationSchema,
  running: z.string().exactOptional(),
  runningSince: z.number().exactOptional(),
  queued: z.array(
    z.object({
      inputId: z.string(),
      text: z.string(),
      delivery: z.enum(["steer", "queue"]),
      files: z.array(z.string()).exactOptional(),
      at: z.number(),
    }),
  ),
  pendingAsks: z.array(
    z.object({
      kind: z.enum(["permission", "question"]),
      requestId: z.string(),
      turnId: z.string().exactOptional(),
    }),
  ),
  model: ModelRefSchema.exactOptional(),
  modelSwitches: z.array(
    z.object({
      from: ModelRefSchema.exactOptional(),
      to: ModelRefSchema,
      afterInputs: z.number().int(),
      at: z.number(),
    }),
  ),
  agent: z.string().exactOptional(),
  endReasons: z.record(z.string(), z.string()),
  todos: z.array(TodoSchema).exactOptional(),
  filesChanged: z
    .object({
      turnId: z.string().exactOptional(),
      files: z.array(FileChangeSchema),
      moreFiles: z.number().int().exactOptional(),
    })
    .exactOptional(),
  turnFiles: z.record(z.string(), TurnFilesSchema),
  spent: UsageSchema.exactOptional(),
  contextTokens: z.number().exactOptional(),
});

export type LiveSnapshot = z.infer<typeof LiveSnapshotSchema>;
