/**
 * `GET /v1/sessions/:id/live`: a session as a live chat view starts from it — what
 * `liveConversationOf` folds from its durable events (the conversation, queued inputs, waiting
 * asks, the running turn, models and agent, todos, each turn's files, what it spent), at the
 * transcript's last seq. A client opening a long session reads this instead of the transcript:
 * it is the size of the conversation, not of its events, and it needs no fold; it then
 * subscribes after `conversation.lastSeq`. Only what the durable events give is in it: the
 * text streaming now comes with the subscription (its catch-up delta), the running turn's usage
 * with its next `usage.updated`. `liveSnapshotOf` and `liveFromSnapshot` go between the two.
 */
import { z } from "zod";
import {
  FileChangeSchema,
  ModelRefSchema,
  TodoSchema,
  UsageSchema,
} from "../events/event-parts.js";
import { ConversationSchema } from "./http.js";
import { emptyLiveConversation, type LiveConversation } from "./live-conversation.js";
import { assertType, type Equals } from "./type-equality.js";

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

type Ephemeral = "streaming" | "usage" | "connection";

/** `live` without what only a live reader knows. */
export function liveSnapshotOf(live: LiveConversation): LiveSnapshot {
  const { streaming: _streaming, usage: _usage, connection: _connection, ...snapshot } = live;
  return snapshot;
}

/** The live state a view starts from: the snapshot, nothing streaming yet. */
export function liveFromSnapshot(snapshot: LiveSnapshot): LiveConversation {
  const empty = emptyLiveConversation(snapshot.conversation.sessionId);
  return { ...snapshot, streaming: empty.streaming, connection: empty.connection };
}

// The schema and the reducer's type stay one shape: assignable both ways (`Readonly` records
// and the conversation's intersections keep exact equality from holding).
const _toState = (value: LiveSnapshot): Omit<LiveConversation, Ephemeral> => value;
const _fromState = (value: Omit<LiveConversation, Ephemeral>): LiveSnapshot => value;
// Assignability lets an optional field be missing on one side (and zod would drop it): the
// field names must be the same too.
assertType<Equals<keyof LiveSnapshot, Exclude<keyof LiveConversation, Ephemeral>>>(true);
