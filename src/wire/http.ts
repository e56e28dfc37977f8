/**
 * The sidecar's HTTP API, as zod schemas: request bodies, params and answers of every route,
 * and the one error body. The server validates with them, the OpenAPI document is generated
 * from them, and the client infers its types from them. Isomorphic: no `node:` import.
 */
import { z } from "zod";
import type { Capabilities } from "../backends/capabilities.js";
import type { SessionChanges, VcsStatus } from "../backends/file-changes.js";
import type { FileContent, FileListing, FoundFiles } from "../backends/files/session-files.js";
import { DURABLE_EVENTS } from "../events/event-definitions.js";
import {
  ErrorInfoSchema,
  FileChangeSchema,
  ModelRefSchema,
  OutcomeSchema,
  RevertedFileSchema,
  TodoSchema,
  UsageSchema,
} from "../events/event-parts.js";
import type { SessionContext } from "../runtime/session/session-context.js";
import type { Conversation } from "./conversation-types.js";
import { assertType, type Equals } from "./type-equality.js";

// --- errors ---

/** Every error code the API answers with, and its HTTP status. */
export const ERROR_STATUS = {
  bad_json: 400,
  invalid_request: 400,
  unauthorized: 401,
  bad_origin: 403,
  /** Refused by the operator's rules (a session directory outside `--allow-dir`). */
  forbidden: 403,
  not_found: 404,
  /** The request (headers and body) did not arrive within the sidecar's receive timeout. */
  request_timeout: 408,
  conflict: 409,
  /** In a cluster: another sidecar drives the session (the message names it). */
  not_driver: 409,
  too_large: 413,
  bad_host: 421,
  /** The client holds too many connections open (`limits.connectionsPerClient`). */
  too_many_connections: 429,
  unsupported: 422,
  upstream: 502,
  unavailable: 503,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The body of every error answer: what went wrong (`code`), what to do (`message`). */
export const ErrorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.unknown().optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

// --- shared pieces ---

const CapabilitiesSchema = z.object({
  streamingDeltas: z.boolean(),
  liveToolCalls: z.boolean(),
  nativeSteer: z.boolean(),
  nativeQueue: z.boolean(),
  cancelQueued: z.boolean(),
  durableResume: z.boolean(),
  permissions: z.boolean(),
  questions: z.boolean(),
  images: z.boolean(),
  subagents: z.boolean(),
  interruptKeepsSession: z.boolean(),
  revert: z.boolean(),
  switchAgent: z.boolean(),
  fork: z.boolean(),
  rehydrate: z.boolean(),
  commands: z.boolean(),
  compact: z.boolean(),
  mcpStatus: z.boolean(),
  skills: z.boolean(),
  changes: z.boolean(),
  todos: z.boolean(),
  terminal: z.boolean(),
  importSessions: z.boolean(),
});
assertType<Equals<z.infer<typeof CapabilitiesSchema>, Capabilities>>(true);

/** A non-empty string of bounded length (ids, names, titles). */
const text = (max: number) => z.string().min(1).max(max);

export const SessionIdParamsSchema = z.object({ id: text(200) });
export const ChildParamsSchema = z.object({ id: text(200), childId: text(200) });
export const InputParamsSchema = z.object({ id: text(200), inputId: text(200) });
/**
 * The image types the sidecar keeps of the inputs sent through it, to serve again
 * (`GET /v1/sessions/:id/inputs/:inputId/attachments/:index`): raster formats a browser
 * draws, nothing that can run (no SVG).
 */
export const SENT_IMAGE_TYPES: readonly string[] = [
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/avif",
];

/** The `index`-th attachment (from 0) of an input. */
export const InputAttachmentParamsSchema = InputParamsSchema.extend({
  index: z.coerce.number().int().min(0).max(31),
});
export const AskParamsSchema = z.object({ id: text(200), requestId: text(200) });

// --- sessions ---

/** An ask waiting for an answer, as a reconnecting UI needs it. */
const PendingAskSchema = z.object({
  kind: z.enum(["permission", "question"]),
  requestId: z.string(),
  turnId: z.string().optional(),
});

/** The origin of a fork (`session.forked`): the session, and the input it was forked before. */
export const ForkedFromSchema = z.object({ sessionId: z.string(), inputId: z.string() });

export const SessionInfoSchema = z.object({
  id: z.string(),
  title: z.string().optional(),
  directory: z.string(),
  backend: z.string(),
  /** `open`: followed by this sidecar now; otherwise kept in the store (opened on demand). */
  open: z.boolean(),
  /** The store's state of the record: `released` ones can be opened again, `killed` ones not. */
  state: z.enum(["open", "released", "killed"]),
  running: z.boolean(),
  /** The seq of its last durable event (0 for none): subscribe with `after` to resume. */
  lastSeq: z.number().int(),
  capabilities: CapabilitiesSchema.optional(),
  /**
   * The sandbox its turns run in on this sidecar (docs/security.md): `off`, `read-only`,
   * `workspace-write`, or `unknown` (a server attached to, run as its owner chose).
   */
  sandbox: z.enum(["off", "read-only", "workspace-write", "unknown"]).optional(),
  model: ModelRefSchema.optional(),
  /** The agent of its latest step or switch (`agent.switched`), while it is open; absent before either. */
  agent: z.string().optional(),
  /** The session this one is a fork of (its `session.forked`), while it is open. */
  forkedFrom: ForkedFromSchema.optional(),
  pendingAsks: z.array(PendingAskSchema).optional(),
  createdAt: z.number().optional(),
  /** When its record last changed (created, opened, renamed): not its activity. */
  updatedAt: z.number().optional(),
  /** When its last durable event happened (ms since the epoch): a session list's "last activity". */
  lastActivityAt: z.number().optional(),
  /**
   * Its directory is gone from this machine (removed since): it can be read, not continued, and
   * a kept one is not opened (`409 conflict`). Absent when the directory is there or cannot be
   * checked (a server attached to).
   */
  directoryMissing: z.literal(true).optional(),
});
export type SessionInfo = z.infer<typeof SessionInfoSchema>;

export const SessionListSchema = z.object({
  sessions: z.array(SessionInfoSchema),
  /** Where the next page starts (`?cursor=`); absent on the last page and without `limit`. */
  nextCursor: z.string().optional(),
});

/** `GET /v1/sessions`'s query: without `limit`, every session. */
export const SessionListQuerySchema = z.object({
  /** Only the sessions made in this directory (an absolute path). */
  directory: text(4096).optional(),
  /** At most this many sessions (a page). */
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  /** A page's `nextCursor`: the sessions after that page. */
  cursor: text(500).optional(),
  /** `oldest` first (the default) or `newest` first. */
  order: z.enum(["oldest", "newest"]).optional(),
});
export type SessionListQuery = z.infer<typeof SessionListQuerySchema>;

/** A list of what a project offers (agents, commands, MCP servers, skills): of this directory. */
export const DirectoryQuerySchema = z.strictObject({
  /** An allowed project directory (absolute); default the sidecar's. */
  directory: text(4096).optional(),
});

/** A project: a directory sessions are made in. */
export const ProjectSchema = z.object({
  directory: z.string(),
  /** The sidecar's own directory, where a session is made when none is named. */
  default: z.boolean(),
  /** Clients may make sessions there (`--allow-dir`, or the default directory). */
  allowed: z.boolean(),
  /** How many sessions the store keeps for it. */
  sessions: z.number().int(),
  /** When its newest session was made (ms since the epoch); absent with none. */
  lastCreatedAt: z.number().optional(),
});
export type Project = z.infer<typeof ProjectSchema>;

export const ProjectListSchema = z.object({ projects: z.array(ProjectSchema) });

export const CreateSessionBodySchema = z.strictObject({
  /** Default: the bridge's directory. An absolute path. */
  directory: text(4096).optional(),
  title: text(500).optional(),
  model: ModelRefSchema.optional(),
});
export type CreateSessionBody = z.infer<typeof CreateSessionBodySchema>;

export const RenameSessionBodySchema = z.strictObject({ title: text(500) });

/** The answer of an action that has nothing else to say. */
export const OkSchema = z.object({ ok: z.literal(true) });

// --- inputs ---

const AttachmentSchema = z.union([
  z.strictObject({
    name: text(255),
    /** `data:<mime>[;base64],<payload>`, at most the sidecar's attachment limit decoded. */
    dataUrl: z.string().startsWith("data:"),
  }),
  z.strictObject({
    /** Relative to the session directory (or absolute inside it). */
    path: text(4096),
  }),
]);
export type AttachmentBody = z.infer<typeof AttachmentSchema>;

export const SendInputBodySchema = z.strictObject({
  text: z.string().max(1_000_000),
  delivery: z.enum(["steer", "queue"]),
  /** Chosen by the client: a send retried with the same key is admitted once (24 h). */
  idempotencyKey: text(200).optional(),
  attachments: z.array(AttachmentSchema).max(32).optional(),
  /**
   * A `steer` while a turn runs, on a backend that cannot steer (`capabilities.nativeSteer`
   * false): `fallback` (default) lets the bridge queue it or supersede the turn (its
   * `steerFallback`); `reject` answers 422 `unsupported` instead.
   */
  ifCannotSteer: z.enum(["fallback", "reject"]).optional(),
});
export type SendInputBody = z.infer<typeof SendInputBodySchema>;

export const SendInputResultSchema = z.object({
  /** The admitted input's id, when the backend admitted it before the answer. */
  inputId: z.string().optional(),
  /** The turn it started or joined. */
  turnId: z.string(),
});
export type SendInputResult = z.infer<typeof SendInputResultSchema>;

export const SwitchModelBodySchema = z.strictObject({
  providerID: text(200),
  modelID: text(200),
});

/** Reverts the session to before this input (`capabilities.revert`). */
export const RevertBodySchema = z.strictObject({ inputId: text(200) });

export const PermissionReplyBodySchema = z.strictObject({
  reply: z.enum(["once", "always", "reject"]),
  /** With `reject`: tells the model why. */
  message: z.string().max(10_000).optional(),
});

export const QuestionAnswerBodySchema = z.strictObject({
  /** One list of chosen labels (or free text) per question. */
  answers: z.array(z.array(z.string())),
});

// --- models ---

const ModelInfoSchema = z.object({
  providerID: z.string(),
  modelID: z.string(),
  name: z.string().optional(),
});
export const ModelCatalogSchema = z.object({
  models: z.array(ModelInfoSchema),
  default: ModelRefSchema.optional(),
});
export type ModelCatalog = z.infer<typeof ModelCatalogSchema>;

/** The agents a session can switch to: OpenCode's primary ones that are not hidden. */
export const AgentListSchema = z.object({
  agents: z.array(z.object({ name: z.string(), description: z.string().optional() })),
});
export type AgentList = z.infer<typeof AgentListSchema>;

/** A location's slash commands (`GET /v1/commands`); descriptions are untrusted text. */
export const CommandListSchema = z.object({
  commands: z.array(
    z.object({
      name: z.string(),
      description: z.string().optional(),
      /** The template's placeholders: `$ARGUMENTS`, `$1`, `$2`, … */
      hints: z.array(z.string()),
      /** `command`, `mcp` or `skill`. */
      source: z.string().optional(),
      /** OpenCode would run it as a subagent; the bridge runs it in the session. */
      subtask: z.boolean().optional(),
    }),
  ),
});

/** `POST /v1/sessions/:id/command`: runs one of `GET /v1/commands` as an input. */
export const RunCommandBodySchema = z.strictObject({
  name: text(200),
  /** What the template's `$ARGUMENTS` / `$1`, `$2`, … stand for (default none). */
  arguments: z.string().max(100_000).optional(),
  delivery: z.enum(["steer", "queue"]),
  /** As for inputs: a run retried with the same key is admitted once (the first answer again). */
  idempotencyKey: text(200).optional(),
});

/** The MCP servers of the sidecar's directory and their state (`GET /v1/mcp`). */
export const McpStatusSchema = z.object({
  servers: z.array(
    z.object({
      name: z.string(),
      /** `connected`, `disabled`, `failed`, `needs_auth`, `needs_client_registration`. */
      status: z.string(),
      error: z.string().optional(),
    }),
  ),
});

/** The skills of the sidecar's directory (`GET /v1/skills`); descriptions are untrusted text. */
export const SkillListSchema = z.object({
  skills: z.array(
    z.object({ name: z.string(), description: z.string().optional(), location: z.string() }),
  ),
});

/** `POST /v1/sessions/:id/agent`: one of `GET /v1/agents`. */
export const SwitchAgentBodySchema = z.strictObject({ agent: text(200) });

/** `POST /v1/sessions/:id/fork`: the input the fork is made before (its turn left out). */
export const ForkBodySchema = z.strictObject({ inputId: text(200) });

// --- the user's own OpenCode sessions ---

/** One of the user's own OpenCode sessions the sidecar does not keep (`GET /v1/opencode-sessions`). */
export const OpencodeSessionSchema = z.object({
  id: z.string().describe("OpenCode's session id: what POST /v1/sessions/import takes"),
  title: z.string(),
  directory: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type OpencodeSession = z.infer<typeof OpencodeSessionSchema>;

export const OpencodeSessionListSchema = z.object({ sessions: z.array(OpencodeSessionSchema) });

/** `GET /v1/opencode-sessions`'s query: without `directory`, every allowed directory. */
export const OpencodeSessionListQuerySchema = z.object({
  /** Only the sessions in this directory or under it (an absolute path, an allowed one). */
  directory: text(4096).optional(),
});

/** `POST /v1/sessions/import`'s body. */
export const ImportSessionBodySchema = z.strictObject({
  upstreamId: text(200),
  /** The directory OpenCode is asked in (default: the sidecar's); the one it was listed under. */
  directory: text(4096).optional(),
});

// --- conversation ---

const PermissionFields = DURABLE_EVENTS["permission.asked"].shape;
const QuestionFields = DURABLE_EVENTS["question.asked"].shape;
const SubagentFields = DURABLE_EVENTS["subagent.started"].shape;

const ConversationPartSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), partId: z.string(), text: z.string() }),
  z.object({ type: z.literal("reasoning"), partId: z.string(), text: z.string() }),
  z.object({
    type: z.literal("tool"),
    callId: z.string(),
    tool: z.string(),
    input: z.record(z.string(), z.unknown()),
    state: z.enum(["running", "succeeded", "failed"]),
    output: z.string().exactOptional(),
    title: z.string().exactOptional(),
    error: ErrorInfoSchema.exactOptional(),
  }),
  z.object({
    type: z.literal("permission"),
    reply: z.enum(["once", "always", "reject"]).exactOptional(),
    ...PermissionFields,
  }),
  z.object({
    type: z.literal("question"),
    state: z.enum(["asked", "replied", "rejected"]),
    answers: z.array(z.unknown()).exactOptional(),
    ...QuestionFields,
  }),
  z.object({
    type: z.literal("subagent"),
    state: z.enum(["running", "ended"]),
    result: z.string().exactOptional(),
    ...SubagentFields,
  }),
]);

const MessageSchema = z.discriminatedUnion("role", [
  z.object({
    role: z.literal("user"),
    inputId: z.string(),
    turnId: z.string().exactOptional(),
    text: z.string(),
    files: z.array(z.string()).exactOptional(),
    cancelled: z.string().exactOptional(),
    delivered: z.literal(true).exactOptional(),
  }),
  z.object({
    role: z.literal("assistant"),
    turnId: z.string(),
    parts: z.array(ConversationPartSchema),
    outcome: OutcomeSchema.exactOptional(),
    usage: UsageSchema.exactOptional(),
    error: ErrorInfoSchema.exactOptional(),
  }),
]);

export const ConversationSchema = z.object({
  sessionId: z.string(),
  lastSeq: z.number(),
  messages: z.array(MessageSchema),
  undone: z
    .object({
      inputId: z.string(),
      messages: z.array(MessageSchema),
      files: z.array(RevertedFileSchema),
      moreFiles: z.number().int().exactOptional(),
    })
    .exactOptional()
    .describe(
      "what an undo took out of `messages` (session.reverted), while a redo (session.unreverted) can bring it back",
    ),
  forkedFrom: ForkedFromSchema.exactOptional().describe(
    "the session this one is a fork of, and the input it was forked before (session.forked)",
  ),
  rehydrations: z
    .array(
      z.object({
        previousUpstreamId: z.string(),
        upstreamId: z.string(),
        afterMessages: z.number().int(),
      }),
    )
    .exactOptional()
    .describe(
      "each continuation in a new OpenCode session after the session's own was lost (session.rehydrated), after `afterMessages` of `messages`",
    ),
  imported: z
    .object({ upstreamId: z.string(), afterMessages: z.number().int() })
    .exactOptional()
    .describe(
      "the user's own OpenCode session this one was imported from (session.imported): the first `afterMessages` of `messages` were made there",
    ),
  compacted: z
    .object({ messageCount: z.number().int() })
    .exactOptional()
    .describe(
      "the latest compaction (session.compacted): the model gets a summary instead of the first `messageCount` messages",
    ),
});
// Both ways by assignability (the parts are intersections in the hand-written types).
const _toConversation = (value: z.infer<typeof ConversationSchema>): Conversation => value;
const _fromConversation = (value: Conversation): z.infer<typeof ConversationSchema> => value;

// --- tickets, health ---

export const TicketSchema = z.object({
  /** Pass as `?ticket=` on a WebSocket or SSE handshake; single use. */
  ticket: z.string(),
  /** Milliseconds since the epoch. */
  expiresAt: z.number(),
});

export const HealthSchema = z.object({
  ok: z.boolean(),
  opencode: z.enum(["up", "down"]),
});

// --- files ---

const FileEntryTypeSchema = z.enum(["file", "directory", "symlink", "other"]);

/** `GET /v1/sessions/:id/files`: a directory of the session's, relative to its directory. */
export const FileListQuerySchema = z.strictObject({ path: z.string().max(4096).optional() });
export const FileListingSchema = z.object({
  /** The directory listed, relative to the session directory (`""` for itself). */
  path: z.string(),
  /** Directories first, then by name; symlinks as they are (not followed). */
  entries: z.array(z.object({ name: z.string(), path: z.string(), type: FileEntryTypeSchema })),
  /** More entries than the sidecar answers (1,000); the rest are left out. */
  truncated: z.boolean(),
});
assertType<Equals<z.infer<typeof FileListingSchema>, FileListing>>(true);

/** `GET /v1/sessions/:id/files/content`: one file of the session's. */
export const FileContentQuerySchema = z.strictObject({ path: text(4096) });
export const FileContentSchema = z.object({
  /** Relative to the session directory, symlinks resolved. */
  path: z.string(),
  size: z.number(),
  /** Not UTF-8 text: `content` is absent. */
  binary: z.boolean(),
  /** The text; its first 1 MiB when `truncated`. */
  content: z.string().optional(),
  truncated: z.boolean(),
});
assertType<Equals<z.infer<typeof FileContentSchema>, FileContent>>(true);

/** `GET /v1/sessions/:id/files/find`: a few letters of a file's path, for `@`-mentions. */
export const FindFilesQuerySchema = z.strictObject({
  q: text(200),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});
export const FoundFilesSchema = z.object({
  /** Best first. */
  files: z.array(z.object({ path: z.string(), type: FileEntryTypeSchema })),
  /** The search stopped at its bound (20,000 entries): a deeper file may match too. */
  truncated: z.boolean(),
});
assertType<Equals<z.infer<typeof FoundFilesSchema>, FoundFiles>>(true);

export const TranscriptQuerySchema = z.object({
  after: z.coerce.number().int().min(0).optional(),
});

// --- file changes, version control, todos, context ---

/** `?turn=`: one turn of the session (a `turnId` of its events); without it, the whole session. */
export const TurnQuerySchema = z.strictObject({ turn: text(200).optional() });

const FileDiffSchema = FileChangeSchema.extend({
  /**
   * The unified diff of what the steps did (on a managed server; against the last commit on an
   * attached one); absent for a binary file or past the bound.
   */
  patch: z.string().exactOptional(),
  /** The diff was cut (64 KiB a file) or left out (past 1 MiB in all). */
  patchTruncated: z.literal(true).exactOptional(),
});

/** `GET /v1/sessions/:id/changes`: the files the session (or one turn) changed, with diffs. */
export const SessionChangesSchema = z.object({
  files: z.array(FileDiffSchema),
  /** Changed files past the first 200, not listed. */
  moreFiles: z.number().int().exactOptional(),
});
assertType<Equals<z.infer<typeof SessionChangesSchema>, SessionChanges>>(true);

/** `GET /v1/sessions/:id/vcs`: the working tree of the session's directory against its last commit. */
export const VcsStatusSchema = z.object({
  branch: z.string().exactOptional(),
  files: z.array(FileChangeSchema),
  moreFiles: z.number().int().exactOptional(),
});
assertType<Equals<z.infer<typeof VcsStatusSchema>, VcsStatus>>(true);

/** `GET /v1/sessions/:id/todos`: the agent's todo list as it last wrote it. */
export const TodoListSchema = z.object({ todos: z.array(TodoSchema) });

/** `GET /v1/sessions/:id/context`: what the session spent, and its model's context. */
export const SessionContextSchema = z.object({
  spent: UsageSchema.exactOptional(),
  children: z.array(z.object({ sessionId: z.string(), spent: UsageSchema.exactOptional() })),
  total: UsageSchema.exactOptional(),
  turn: z
    .object({ turnId: z.string(), spent: UsageSchema.exactOptional(), running: z.boolean() })
    .exactOptional(),
  context: z
    .object({
      tokens: z.number(),
      model: ModelRefSchema.exactOptional(),
      limit: z.number().exactOptional(),
    })
    .exactOptional(),
});
assertType<Equals<z.infer<typeof SessionContextSchema>, SessionContext>>(true);

// --- remote access (relays, pairing, devices) ---

export const RemoteStatusSchema = z.object({
  /** This sidecar's id at its relays (what a pairing link names). */
  sidecarId: z.string(),
  relays: z.array(
    z.object({
      url: z.string(),
      /** `registered`: devices can reach the sidecar through it now. */
      state: z.enum(["connecting", "registered", "disconnected", "stopped"]),
    }),
  ),
  devices: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      /** ISO time. */
      pairedAt: z.string(),
      /** Its open connections now. */
      connections: z.number().int(),
    }),
  ),
});
export type RemoteStatus = z.infer<typeof RemoteStatusSchema>;

export const PairingRequestSchema = z.strictObject({
  /** The page the link opens (default: the sidecar's `--pair-page`, else the first relay's address). */
  linkBase: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional(),
});

export const PairingSchema = z.object({
  /** Holds a one-time secret: show it only to the device to pair. */
  link: z.string(),
  pairingId: z.string(),
  /** ISO time: ten minutes from now. */
  expiresAt: z.string(),
});
export type Pairing = z.infer<typeof PairingSchema>;

export const DeviceIdParamsSchema = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{22}$/) });
