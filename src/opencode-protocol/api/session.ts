/** Sessions and requests of the `/api` surface (payloads arrive inside `{data}`; the client unwraps them). */
import { z } from "zod";
import { LocationRef, Tokens, WireModelRef } from "../common.js";

export const SessionInfo = z.looseObject({
  id: z.string(),
  projectID: z.string(),
  parentID: z.string().optional(),
  model: WireModelRef.optional(),
  cost: z.number(),
  tokens: Tokens,
  time: z.looseObject({ created: z.number(), updated: z.number() }),
  title: z.string(),
  location: LocationRef,
  /** A staged revert (`revert/stage`): the message it goes back to; gone once cleared or committed. */
  revert: z.looseObject({ messageID: z.string() }).optional(),
});
export type SessionInfo = z.infer<typeof SessionInfo>;

const ModelChoice = z.strictObject({
  id: z.string(),
  providerID: z.string(),
  variant: z.string().optional(),
});

/** `POST /api/session` body. */
export const SessionCreateRequest = z.strictObject({
  model: ModelChoice.optional(),
  location: z.strictObject({ directory: z.string(), workspaceID: z.string().optional() }),
  agent: z.string().optional(),
  title: z.string().optional(),
  parentID: z.string().optional(),
});
export type SessionCreateRequest = z.infer<typeof SessionCreateRequest>;

export const PromptFile = z.strictObject({
  uri: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
});
export const PromptAgent = z.strictObject({ name: z.string() });

/** `POST /api/session/{id}/prompt` body. `delivery` is required here on purpose: the server
 * defaults to steer, which is never the safe default for an ordinary send (seed 001). */
export const PromptRequest = z.strictObject({
  prompt: z.strictObject({
    text: z.string(),
    files: z.array(PromptFile).optional(),
    agents: z.array(PromptAgent).optional(),
  }),
  delivery: z.enum(["steer", "queue"]),
  id: z.string().optional(),
});
export type PromptRequest = z.infer<typeof PromptRequest>;

/** What the server admitted: `admittedSeq` is the durable seq of `prompt.admitted`. */
export const PromptAdmitted = z.looseObject({
  admittedSeq: z.number(),
  id: z.string(),
  sessionID: z.string(),
  delivery: z.enum(["steer", "queue"]),
  prompt: z.looseObject({ text: z.string() }),
});
export type PromptAdmitted = z.infer<typeof PromptAdmitted>;

/**
 * `GET /api/session/{id}/message`: one page of the session's messages (newest first unless
 * `order=asc`) and the cursors to the pages either side. Unwrapped by hand: the cursor sits
 * beside `data`.
 */
export const MessagePage = z.looseObject({
  data: z.array(z.looseObject({ id: z.string(), type: z.string() })),
  cursor: z.looseObject({ next: z.string().nullable().optional() }).optional(),
});
export type MessagePage = z.infer<typeof MessagePage>;

/**
 * What an assistant message (one step) of `MessagePage` says of the files: OpenCode's
 * snapshots before and after the step, and the files the step changed, relative to the
 * session's directory. Verified on 1.18.33: in a git worktree only (elsewhere no snapshot).
 */
export const StepSnapshot = z.looseObject({
  snapshot: z
    .looseObject({
      /** The git tree of the working tree before the step, and after it (snapshot-trees.ts). */
      start: z.string().optional(),
      end: z.string().optional(),
      files: z.array(z.string()).optional(),
    })
    .optional(),
});

/**
 * `POST /api/session/{id}/revert/stage` body: the message to revert to (it is kept, what
 * follows it goes) and whether the files changed since are restored too. Verified on 1.18.33:
 * staging puts the files back on disk at once (in a git worktree; elsewhere OpenCode keeps no
 * snapshots and reports no file) but keeps the messages, listed and sent to the model, with
 * the session's `revert` naming the point; `revert/clear` restores the files and drops the
 * point (redo); `revert/commit` deletes the messages after it, for good. A prompt sent while a
 * revert is staged neither commits nor clears it.
 */
export const RevertStageRequest = z.strictObject({ messageID: z.string(), files: z.boolean() });
/** What staging put back: each file with its lines (and a patch, which the bridge leaves out). */
export const RevertStaged = z.looseObject({
  messageID: z.string(),
  files: z
    .array(
      z.looseObject({
        path: z.string(),
        status: z.string(),
        additions: z.number(),
        deletions: z.number(),
      }),
    )
    .optional(),
});

/** `POST /api/session/{id}/model` body. */
export const SwitchModelRequest = z.strictObject({ model: ModelChoice });

/**
 * `POST /api/session/{id}/agent` body. Verified on 1.18.33: OpenCode checks neither the name
 * (an unknown one runs the next turns under that name) nor whether a turn runs (the running
 * step keeps its agent); it answers 204 and appends `session.next.agent.switched { messageID,
 * agent }` to the session's durable stream, and the next steps run as that agent.
 */
export const SwitchAgentRequest = z.strictObject({ agent: z.string() });

/**
 * One agent of `GET /api/agent` (a location's agents, configured ones included; an empty list
 * until OpenCode has loaded them, see `listAgents`). `mode` is `primary`, `subagent` or `all`
 * (both); left a string so that a new mode does not fail the list. 1.18.33 lists `build`,
 * `plan` (primary), `general`, `explore` (subagents), `compaction`, `title`, `summary` (hidden).
 */
export const AgentInfo = z.looseObject({
  id: z.string(),
  description: z.string().optional(),
  mode: z.string(),
  hidden: z.boolean().optional(),
});
export type AgentInfo = z.infer<typeof AgentInfo>;
export const AgentList = z.array(AgentInfo);

/** `GET /api/session/active`: session id -> what is running. */
export const ActiveSessions = z.record(z.string(), z.unknown());

export const ModelInfo = z.looseObject({
  id: z.string(),
  providerID: z.string(),
  name: z.string(),
});
export type ModelInfo = z.infer<typeof ModelInfo>;
export const ModelList = z.array(ModelInfo);

/** A catalog entry's limits, in tokens (1.18.33: `limit: { context, output, input? }`; 0 when unknown). */
export const ModelLimit = z.looseObject({
  limit: z.looseObject({ context: z.number().optional() }).optional(),
});

/** `GET /api/provider/{id}`: one provider of a location's catalog (without its models). */
export const ProviderInfo = z.looseObject({ id: z.string() });

export const Health = z.looseObject({ healthy: z.literal(true) });

/** A pending permission ask on the `/api` surface (1.18's "permission v2"). */
export const PermissionRequestV2 = z.looseObject({
  id: z.string(),
  sessionID: z.string(),
  action: z.string(),
  resources: z.array(z.string()),
  save: z.array(z.string()).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type PermissionRequestV2 = z.infer<typeof PermissionRequestV2>;

/** `POST /api/session/{id}/permission/{requestID}/reply` body. */
export const PermissionReplyRequest = z.strictObject({
  reply: z.enum(["once", "always", "reject"]),
  message: z.string().optional(),
});

/** `POST /api/session/{id}/question/{requestID}/reply` body: chosen labels per question. */
export const QuestionReplyRequest = z.strictObject({ answers: z.array(z.array(z.string())) });
