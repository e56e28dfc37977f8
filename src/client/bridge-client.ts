/**
 * `BridgeClient`: the sidecar's API as typed calls, for a browser or Node. One method per
 * route, its input and answer types inferred from the sidecar's own zod schemas
 * (`src/wire`), every answer checked against them at the boundary. Every call
 * takes `{ signal, timeoutMs }` and has a default bound; `subscribe` reads a session's events
 * over the client's one WebSocket, which reconnects and resumes by itself.
 */
import { z } from "zod";
import type { CanonicalEvent } from "../events/canonical.js";
import { anySignalWithTimeout } from "../util/timeout-signal.js";
import { CanonicalEventSchema } from "../wire/canonical-schema.js";
import {
  AgentListSchema,
  CommandListSchema,
  ConversationSchema,
  type CreateSessionBody,
  FileContentSchema,
  FileListingSchema,
  FoundFilesSchema,
  HealthSchema,
  McpStatusSchema,
  ModelCatalogSchema,
  OkSchema,
  OpencodeSessionListSchema,
  type Pairing,
  PairingSchema,
  ProjectListSchema,
  type RemoteStatus,
  RemoteStatusSchema,
  type SendInputResult,
  SendInputResultSchema,
  SessionChangesSchema,
  SessionContextSchema,
  SessionInfoSchema,
  type SessionListQuery,
  SessionListSchema,
  SkillListSchema,
  TicketSchema,
  TodoListSchema,
  VcsStatusSchema,
} from "../wire/http.js";
import type { LiveConversation } from "../wire/live-conversation.js";
import { LiveSnapshotSchema, liveFromSnapshot } from "../wire/live-snapshot.js";
import { BridgeClientError, BridgeProtocolError } from "./errors.js";
import { type CallOptions, type FetchLike, HttpCaller } from "./http-caller.js";
import { inputBody, newIdempotencyKey, type SendInput, withOneRetry } from "./send-input.js";
import type { ConnectionListener, ConnectionObservable } from "./socket/connection-state.js";
import type { Subscription } from "./socket/event-subscription.js";
import { SharedSocket, type SocketOptions, type SubscribeOptions } from "./socket/shared-socket.js";
import { sidecarSocketUrl } from "./socket/socket-url.js";
import type { WebSocketConstructor } from "./socket/websocket-like.js";
import { openTerminalSocket, type TerminalConnection } from "./terminal-connection.js";

export interface BridgeClientOptions {
  /** The sidecar's URL, as `ocb serve` prints it (`http://127.0.0.1:4097`). */
  url: string;
  /** The sidecar's access token (sent as `Authorization: Bearer`; never in a URL). */
  token: string;
  /** Default: the global `fetch`. */
  fetch?: FetchLike;
  /** Default: the global `WebSocket` (Node 20 has none: pass `ws`'s). Only `subscribe` needs it. */
  WebSocket?: WebSocketConstructor;
  /** Bound on each call without a `timeoutMs` of its own (default 30 000 ms). */
  timeoutMs?: number;
  /** The shared WebSocket: reconnect backoff, heartbeats, buffers. */
  socket?: SocketOptions;
}

export type SessionInfo = z.output<typeof SessionInfoSchema>;
export type ModelCatalog = z.output<typeof ModelCatalogSchema>;
/** An agent a session can switch to (`BridgeClient.agents`). */
export type AgentInfo = z.output<typeof AgentListSchema>["agents"][number];
export type Project = z.output<typeof ProjectListSchema>["projects"][number];
/** One of the user's own OpenCode sessions the sidecar does not keep (`BridgeClient.opencodeSessions`). */
export type OpencodeSession = z.output<typeof OpencodeSessionListSchema>["sessions"][number];
export type SessionPage = z.output<typeof SessionListSchema>;
export type { SessionListQuery };
/** The input a command sent (`BridgeClient.runCommand`): its turn, its id once admitted, the key. */
export type CommandResult = z.output<typeof SendInputResultSchema> & { idempotencyKey: string };
/** A slash command a session can run (`BridgeClient.commands`). */
export type CommandInfo = z.output<typeof CommandListSchema>["commands"][number];
/** An MCP server and its state (`BridgeClient.mcpStatus`). */
export type McpServerInfo = z.output<typeof McpStatusSchema>["servers"][number];
/** A skill the model may load (`BridgeClient.skills`). */
export type SkillInfo = z.output<typeof SkillListSchema>["skills"][number];
export type ConversationView = z.output<typeof ConversationSchema>;
/** What a session (or one turn) changed, with diffs (`BridgeClient.changes`). */
export type SessionChangesView = z.output<typeof SessionChangesSchema>;
/** The working tree of a session's directory against its last commit (`BridgeClient.vcs`). */
export type VcsStatusView = z.output<typeof VcsStatusSchema>;
/** What a session spent and its model's context (`BridgeClient.context`). */
export type SessionContextView = z.output<typeof SessionContextSchema>;
/** One entry of the agent's todo list (`BridgeClient.todos`). */
export type TodoItem = z.output<typeof TodoListSchema>["todos"][number];
export type Health = z.output<typeof HealthSchema>;
export type Ticket = z.output<typeof TicketSchema>;
export type { Pairing, RemoteStatus };
/** What a send answers, with the idempotency key it went with (to retry it yourself). */
/** A list of what a project offers: `directory`, one of `projects()` (default the sidecar's). */
export type ProjectCallOptions = CallOptions & { directory?: string };

export type SendResult = SendInputResult & { idempotencyKey: string };
export type PermissionReply = "once" | "always" | "reject";
/** A directory of a session's (`BridgeClient.listFiles`). */
export type FileListing = z.output<typeof FileListingSchema>;
/** A file of a session's: its text, or that it is binary (`BridgeClient.readFile`). */
export type FileContent = z.output<typeof FileContentSchema>;
/** Files found by a few letters, best first (`BridgeClient.findFiles`). */
export type FoundFiles = z.output<typeof FoundFilesSchema>;
export type { SendInput, SubscribeOptions, Subscription };

const DEFAULT_TIMEOUT_MS = 30_000;

/** Any OpenAPI document: an object with its version (the rest is the document's business). */
const OpenApiDocumentSchema = z.looseObject({ openapi: z.string() });

export class BridgeClient {
  readonly #http: HttpCaller;
  readonly #socket: SharedSocket;
  readonly #base: URL;
  readonly #WebSocket: WebSocketConstructor | undefined;

  constructor(options: BridgeClientOptions) {
    let base: URL;
    try {
      base = new URL(options.url);
    } catch (error) {
      throw new BridgeClientError(
        `url must be the sidecar's http(s) URL, like http://127.0.0.1:4097; got ${JSON.stringify(options.url)}`,
        { cause: error },
      );
    }
    if (base.protocol !== "http:" && base.protocol !== "https:") {
      throw new BridgeClientError(`url must be http(s), not ${base.protocol} (${options.url})`);
    }
    if (typeof options.token !== "string" || options.token === "") {
      throw new BridgeClientError("token is required: the one `ocb serve` printed (or OCB_TOKEN)");
    }
    const fetchImpl = options.fetch ?? globalThis.fetch?.bind(globalThis);
    if (fetchImpl === undefined) {
      throw new BridgeClientError("no fetch in this runtime: pass one as the `fetch` option");
    }
    this.#http = new HttpCaller({
      base,
      token: options.token,
      fetch: fetchImpl,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    });
    const globalSocket = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    this.#base = base;
    this.#WebSocket = options.WebSocket ?? globalSocket;
    this.#socket = new SharedSocket({
      baseUrl: base,
      WebSocket: options.WebSocket ?? globalSocket,
      ticket: async (signal) => (await this.ticket({ signal })).ticket,
      options: options.socket ?? {},
    });
  }

  /** The shared WebSocket's state, and changes of it (`onChange`). */
  get connection(): ConnectionObservable {
    return this.#socket.connection;
  }

  /** Calls `listener` on every change of the WebSocket's state; returns the function that stops it. */
  onConnectionChange(listener: ConnectionListener): () => void {
    return this.#socket.connection.onChange(listener);
  }

  // --- the sidecar ---

  /** `GET /healthz`: whether the sidecar and its OpenCode server are up (503 is an answer too). */
  health(options?: CallOptions): Promise<Health> {
    return this.#http.call(
      { method: "GET", path: "/healthz", schema: HealthSchema, answerStatuses: [503] },
      options,
    );
  }

  /** `GET /metrics`: the Prometheus text. */
  metrics(options?: CallOptions): Promise<string> {
    return this.#http.call({ method: "GET", path: "/metrics", schema: undefined }, options);
  }

  /** `GET /v1/openapi.json`: the OpenAPI 3.1 document. */
  openapi(options?: CallOptions): Promise<Record<string, unknown>> {
    return this.#http.call(
      { method: "GET", path: "/v1/openapi.json", schema: OpenApiDocumentSchema },
      options,
    );
  }

  /** `POST /v1/tickets`: a single-use, short-lived ticket for a browser's WebSocket/SSE handshake. */
  ticket(options?: CallOptions): Promise<Ticket> {
    return this.#http.call({ method: "POST", path: "/v1/tickets", schema: TicketSchema }, options);
  }

  // --- remote access ---

  /** `GET /v1/remote`: the relays this sidecar is reachable through and the paired devices. */
  remoteStatus(options?: CallOptions): Promise<RemoteStatus> {
    return this.#http.call(
      { method: "GET", path: "/v1/remote", schema: RemoteStatusSchema },
      options,
    );
  }

  /**
   * `POST /v1/remote/pairings`: a one-time pairing link (ten minutes, one device). It holds a
   * secret: show it to the device to pair only. Refused through a relay.
   */
  createPairing(body: { linkBase?: string } = {}, options?: CallOptions): Promise<Pairing> {
    return this.#http.call(
      { method: "POST", path: "/v1/remote/pairings", body, schema: PairingSchema },
      options,
    );
  }

  /** `DELETE /v1/remote/devices/:id`: cuts the device's connections and refuses it from now on. */
  async revokeDevice(deviceId: string, options?: CallOptions): Promise<void> {
    await this.#http.call(
      {
        method: "DELETE",
        path: `/v1/remote/devices/${encodeURIComponent(deviceId)}`,
        schema: OkSchema,
      },
      options,
    );
  }

  /** `GET /v1/models`: the model catalog. */
  models(options?: CallOptions): Promise<ModelCatalog> {
    return this.#http.call(
      { method: "GET", path: "/v1/models", schema: ModelCatalogSchema },
      options,
    );
  }

  /**
   * `GET /v1/agents`: the agents a session can switch to (OpenCode's primary ones that are not
   * hidden; `capabilities.switchAgent`, 422 elsewhere).
   */
  async agents(options: ProjectCallOptions = {}): Promise<AgentInfo[]> {
    const { directory, ...call } = options;
    const list = await this.#http.call(
      { method: "GET", path: projectPath("/v1/agents", directory), schema: AgentListSchema },
      call,
    );
    return list.agents;
  }

  /**
   * `GET /v1/commands`: the slash commands of the sidecar's directory, with their argument
   * hints and source (`capabilities.commands`, 422 elsewhere). Descriptions are untrusted text.
   */
  async commands(options: ProjectCallOptions = {}): Promise<CommandInfo[]> {
    const { directory, ...call } = options;
    const list = await this.#http.call(
      { method: "GET", path: projectPath("/v1/commands", directory), schema: CommandListSchema },
      call,
    );
    return list.commands;
  }

  /** `GET /v1/mcp`: the MCP servers of the sidecar's directory and their state (`[]`: none configured). */
  async mcpStatus(options: ProjectCallOptions = {}): Promise<McpServerInfo[]> {
    const { directory, ...call } = options;
    const status = await this.#http.call(
      { method: "GET", path: projectPath("/v1/mcp", directory), schema: McpStatusSchema },
      call,
    );
    return status.servers;
  }

  /** `GET /v1/skills`: the skills the model may load in the sidecar's directory. */
  async skills(options: ProjectCallOptions = {}): Promise<SkillInfo[]> {
    const { directory, ...call } = options;
    const list = await this.#http.call(
      { method: "GET", path: projectPath("/v1/skills", directory), schema: SkillListSchema },
      call,
    );
    return list.skills;
  }

  // --- sessions ---

  /** `GET /v1/sessions`: every session, open or kept, oldest first (`sessionPage` for pages). */
  async listSessions(options?: CallOptions): Promise<SessionInfo[]> {
    return (await this.sessionPage({}, options)).sessions;
  }

  /**
   * `GET /v1/sessions?limit=&cursor=&directory=&order=`: a page of the sessions; pass its
   * `nextCursor` as `cursor` for the next one (absent on the last page).
   */
  sessionPage(query: SessionListQuery, options?: CallOptions): Promise<SessionPage> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) search.set(name, String(value));
    }
    const path = search.size === 0 ? "/v1/sessions" : `/v1/sessions?${search}`;
    return this.#http.call({ method: "GET", path, schema: SessionListSchema }, options);
  }

  /** `GET /v1/projects`: the directories sessions are made in, with their session counts. */
  async projects(options?: CallOptions): Promise<Project[]> {
    const list = await this.#http.call(
      { method: "GET", path: "/v1/projects", schema: ProjectListSchema },
      options,
    );
    return list.projects;
  }

  /**
   * `GET /v1/opencode-sessions`: the user's own OpenCode sessions (`opencode run`, the TUI) in
   * `directory` or under it (default: every allowed directory) that the sidecar does not keep,
   * the most recently updated first (`capabilities.importSessions`; 422 elsewhere, 403 for a
   * directory not allowed). Titles are untrusted text.
   */
  async opencodeSessions(
    query: { directory?: string } = {},
    options?: CallOptions,
  ): Promise<OpencodeSession[]> {
    const path =
      query.directory === undefined
        ? "/v1/opencode-sessions"
        : `/v1/opencode-sessions?${new URLSearchParams({ directory: query.directory })}`;
    const list = await this.#http.call(
      { method: "GET", path, schema: OpencodeSessionListSchema },
      options,
    );
    return list.sessions;
  }

  /**
   * `POST /v1/sessions/import`: imports one of `opencodeSessions()` with its whole history and
   * opens it (its id is `upstreamId`; `session.imported`; the next input tells the model the
   * earlier conversation). One imported before is answered as it is, not imported again; 404
   * for a session OpenCode has not, 403 for a directory not allowed.
   */
  importSession(
    upstreamId: string,
    body: { directory?: string } = {},
    options?: CallOptions,
  ): Promise<SessionInfo> {
    return this.#http.call(
      {
        method: "POST",
        path: "/v1/sessions/import",
        body: { upstreamId, ...body },
        schema: SessionInfoSchema,
      },
      options,
    );
  }

  /** `POST /v1/sessions`. */
  createSession(body: CreateSessionBody = {}, options?: CallOptions): Promise<SessionInfo> {
    return this.#http.call(
      { method: "POST", path: "/v1/sessions", body, schema: SessionInfoSchema },
      options,
    );
  }

  /** `GET /v1/sessions/:id`: opens (adopts) a kept session on demand. */
  getSession(sessionId: string, options?: CallOptions): Promise<SessionInfo> {
    return this.#http.call(
      { method: "GET", path: sessionPath(sessionId), schema: SessionInfoSchema },
      options,
    );
  }

  /**
   * `GET /v1/sessions/:id/inputs/:inputId/attachments/:index`: an image an input carried (its
   * `index`-th attachment, from 0), while the sidecar keeps it (sent through it, recently); a
   * `BridgeApiError` 404 otherwise (show the attachment by its name then).
   */
  inputImage(
    sessionId: string,
    inputId: string,
    index: number,
    options?: CallOptions,
  ): Promise<Blob> {
    const path = `${sessionPath(sessionId)}/inputs/${encodeURIComponent(inputId)}/attachments/${index}`;
    return this.#http.blob(path, options);
  }

  /** `PATCH /v1/sessions/:id`. */
  renameSession(sessionId: string, title: string, options?: CallOptions): Promise<SessionInfo> {
    return this.#http.call(
      { method: "PATCH", path: sessionPath(sessionId), body: { title }, schema: SessionInfoSchema },
      options,
    );
  }

  /** `POST /v1/sessions/:id/release`: the sidecar stops following it; the store keeps it. */
  releaseSession(sessionId: string, options?: CallOptions): Promise<SessionInfo> {
    return this.#http.call(
      { method: "POST", path: `${sessionPath(sessionId)}/release`, schema: SessionInfoSchema },
      options,
    );
  }

  /** `DELETE /v1/sessions/:id`: kills it (its running turn is interrupted). */
  async killSession(sessionId: string, options?: CallOptions): Promise<void> {
    await this.#ok("DELETE", sessionPath(sessionId), undefined, options);
  }

  /** `GET /v1/sessions/:id/conversation`: messages and parts, as a UI draws them. */
  conversation(sessionId: string, options?: CallOptions): Promise<ConversationView> {
    return this.#http.call(
      { method: "GET", path: `${sessionPath(sessionId)}/conversation`, schema: ConversationSchema },
      options,
    );
  }

  /**
   * `GET /v1/sessions/:id/live`: the session as a live view starts from it — what
   * `liveConversationOf` folds from its transcript, without the fold or the events' bytes (a long
   * session's transcript is ten times its size). Follow it with
   * `subscribe(sessionId, { after: live.conversation.lastSeq })` and `reduceLive`.
   */
  async live(sessionId: string, options?: CallOptions): Promise<LiveConversation> {
    const snapshot = await this.#http.call(
      { method: "GET", path: `${sessionPath(sessionId)}/live`, schema: LiveSnapshotSchema },
      options,
    );
    return liveFromSnapshot(snapshot);
  }

  /**
   * `GET /v1/sessions/:id/changes[?turn=]`: the files the session's steps changed (or those of
   * the turn `turnId`), each with its lines and unified diff of what those steps did (against
   * the last commit on an attached server; cut: `patchTruncated`). `files.changed` on the
   * stream says the same at each turn's end.
   */
  changes(
    sessionId: string,
    options: CallOptions & { turnId?: string } = {},
  ): Promise<SessionChangesView> {
    const query = options.turnId === undefined ? "" : `?turn=${encodeURIComponent(options.turnId)}`;
    return this.#http.call(
      {
        method: "GET",
        path: `${sessionPath(sessionId)}/changes${query}`,
        schema: SessionChangesSchema,
      },
      options,
    );
  }

  /** `GET /v1/sessions/:id/vcs`: the session's working tree against its last commit. */
  vcs(sessionId: string, options?: CallOptions): Promise<VcsStatusView> {
    return this.#http.call(
      { method: "GET", path: `${sessionPath(sessionId)}/vcs`, schema: VcsStatusSchema },
      options,
    );
  }

  /** `GET /v1/sessions/:id/todos`: the agent's todo list (`todo.updated` follows it live). */
  async todos(sessionId: string, options?: CallOptions): Promise<TodoItem[]> {
    const list = await this.#http.call(
      { method: "GET", path: `${sessionPath(sessionId)}/todos`, schema: TodoListSchema },
      options,
    );
    return list.todos;
  }

  /**
   * `GET /v1/sessions/:id/context[?turn=]`: what the session spent (and its subagents), one
   * turn's spending, and the latest step's context tokens against its model's limit.
   */
  context(
    sessionId: string,
    options: CallOptions & { turnId?: string } = {},
  ): Promise<SessionContextView> {
    const query = options.turnId === undefined ? "" : `?turn=${encodeURIComponent(options.turnId)}`;
    return this.#http.call(
      {
        method: "GET",
        path: `${sessionPath(sessionId)}/context${query}`,
        schema: SessionContextSchema,
      },
      options,
    );
  }

  /** `GET /v1/sessions/:id/transcript`: its durable events (NDJSON), each checked. */
  transcript(
    sessionId: string,
    options: CallOptions & { after?: number } = {},
  ): Promise<CanonicalEvent[]> {
    return this.#events(sessionPath(sessionId), sessionId, options);
  }

  /**
   * `GET /v1/sessions/:id/children/:childId/conversation`: a subagent's child session (its id
   * from `subagent.started`) as messages and parts. Its live events: `subscribe(childId)`
   * while the parent is open.
   */
  childConversation(
    sessionId: string,
    childSessionId: string,
    options?: CallOptions,
  ): Promise<ConversationView> {
    const path = `${childPath(sessionId, childSessionId)}/conversation`;
    return this.#http.call({ method: "GET", path, schema: ConversationSchema }, options);
  }

  /** `GET /v1/sessions/:id/children/:childId/transcript`: the child's durable events. */
  childTranscript(
    sessionId: string,
    childSessionId: string,
    options: CallOptions & { after?: number } = {},
  ): Promise<CanonicalEvent[]> {
    return this.#events(childPath(sessionId, childSessionId), childSessionId, options);
  }

  // --- inputs and asks ---

  /**
   * `POST /v1/sessions/:id/inputs`. The idempotency key is generated when absent; after a
   * network failure the send is tried once more with the same key, so it is admitted once.
   */
  async send(sessionId: string, input: SendInput, options?: CallOptions): Promise<SendResult> {
    const idempotencyKey = input.idempotencyKey ?? newIdempotencyKey();
    const body = inputBody(input, idempotencyKey);
    const path = `${sessionPath(sessionId)}/inputs`;
    const result = await withOneRetry(() =>
      this.#http.call({ method: "POST", path, body, schema: SendInputResultSchema }, options),
    );
    return { ...result, idempotencyKey };
  }

  /**
   * `DELETE /v1/sessions/:id/inputs/:inputId`: takes back a queued input not yet sent (where
   * the session's `capabilities.cancelQueued`); it ends `input.cancelled`.
   */
  async cancelInput(sessionId: string, inputId: string, options?: CallOptions): Promise<void> {
    const path = `${sessionPath(sessionId)}/inputs/${encodeURIComponent(inputId)}`;
    await this.#ok("DELETE", path, undefined, options);
  }

  /** `POST /v1/sessions/:id/interrupt`: ends the running turn. */
  async interrupt(sessionId: string, options?: CallOptions): Promise<void> {
    await this.#ok("POST", `${sessionPath(sessionId)}/interrupt`, undefined, options);
  }

  /**
   * `POST /v1/sessions/:id/command`: runs slash command `name` (one of `commands()`) as an
   * input, its template with `arguments` put in; its turn is a normal turn (`delivery` as for
   * `send`). 400 for an unknown name, naming the commands there are.
   */
  async runCommand(
    sessionId: string,
    command: {
      name: string;
      arguments?: string;
      delivery: "steer" | "queue";
      /** Default a new one; sent again once after a lost connection, as `send` does. */
      idempotencyKey?: string;
    },
    options?: CallOptions,
  ): Promise<CommandResult> {
    const idempotencyKey = command.idempotencyKey ?? newIdempotencyKey();
    const body = { ...command, idempotencyKey };
    const path = `${sessionPath(sessionId)}/command`;
    const result = await withOneRetry(() =>
      this.#http.call({ method: "POST", path, body, schema: SendInputResultSchema }, options),
    );
    return { ...result, idempotencyKey };
  }

  /**
   * `POST /v1/sessions/:id/compact`: compacts the history into a summary, answering once done
   * (`capabilities.compact`; 409 while the session is busy, 422 where it cannot);
   * `session.compacted` follows.
   */
  async compact(sessionId: string, options?: CallOptions): Promise<void> {
    await this.#ok("POST", `${sessionPath(sessionId)}/compact`, undefined, options);
  }

  /**
   * `POST /v1/sessions/:id/revert`, undo: the session goes back to before the input, the files
   * it and every input after it changed put back; the conversation keeps those messages in
   * `undone` until `unrevert` or the next input (`capabilities.revert`; 409 while the session
   * is busy).
   */
  async revert(sessionId: string, inputId: string, options?: CallOptions): Promise<void> {
    await this.#ok("POST", `${sessionPath(sessionId)}/revert`, { inputId }, options);
  }

  /**
   * `POST /v1/sessions/:id/fork`: a new session whose conversation is this one's before
   * `inputId` (that input's turn and what followed left out; its `forkedFrom` names both). The
   * origin is unchanged (`capabilities.fork`; 404 for an input the session has not).
   */
  fork(sessionId: string, inputId: string, options?: CallOptions): Promise<SessionInfo> {
    return this.#http.call(
      {
        method: "POST",
        path: `${sessionPath(sessionId)}/fork`,
        body: { inputId },
        schema: SessionInfoSchema,
      },
      options,
    );
  }

  /**
   * `POST /v1/sessions/:id/continue`: a session whose OpenCode session was lost goes on in a new
   * one, primed with the conversation so far (`session.rehydrated`; `capabilities.rehydrate`;
   * 409 while its OpenCode session still exists). A send to such a session answers 409 until
   * then.
   */
  continueSession(sessionId: string, options?: CallOptions): Promise<SessionInfo> {
    return this.#http.call(
      { method: "POST", path: `${sessionPath(sessionId)}/continue`, schema: SessionInfoSchema },
      options,
    );
  }

  /**
   * `POST /v1/sessions/:id/unrevert`, redo: takes back the last undo while no input has
   * followed it (409 when there is nothing to redo, or while the session is busy).
   */
  async unrevert(sessionId: string, options?: CallOptions): Promise<void> {
    await this.#ok("POST", `${sessionPath(sessionId)}/unrevert`, undefined, options);
  }

  /** `POST /v1/sessions/:id/model`: the model of the next steps. */
  /**
   * `POST /v1/sessions/:id/agent`: the agent of the next steps, one of `agents()` (400 naming
   * them otherwise); `agent.switched` follows on the session's stream.
   */
  async switchAgent(sessionId: string, agent: string, options?: CallOptions): Promise<void> {
    await this.#ok("POST", `${sessionPath(sessionId)}/agent`, { agent }, options);
  }

  async switchModel(
    sessionId: string,
    model: { providerID: string; modelID: string },
    options?: CallOptions,
  ): Promise<void> {
    const body = { providerID: model.providerID, modelID: model.modelID };
    await this.#ok("POST", `${sessionPath(sessionId)}/model`, body, options);
  }

  /** `POST /v1/sessions/:id/permissions/:requestId`. */
  async replyPermission(
    sessionId: string,
    requestId: string,
    reply: PermissionReply,
    options: CallOptions & { message?: string } = {},
  ): Promise<void> {
    const body = { reply, ...(options.message !== undefined && { message: options.message }) };
    const path = `${sessionPath(sessionId)}/permissions/${encodeURIComponent(requestId)}`;
    await this.#ok("POST", path, body, options);
  }

  /** `POST /v1/sessions/:id/questions/:requestId`: one list of chosen labels per question. */
  async answerQuestion(
    sessionId: string,
    requestId: string,
    answers: string[][],
    options?: CallOptions,
  ): Promise<void> {
    const path = `${sessionPath(sessionId)}/questions/${encodeURIComponent(requestId)}`;
    await this.#ok("POST", path, { answers }, options);
  }

  /** `POST /v1/sessions/:id/questions/:requestId/reject`. */
  async rejectQuestion(sessionId: string, requestId: string, options?: CallOptions): Promise<void> {
    const path = `${sessionPath(sessionId)}/questions/${encodeURIComponent(requestId)}/reject`;
    await this.#ok("POST", path, undefined, options);
  }

  // --- streams ---

  /**
   * The session's durable events after `after` (default 0: all), then live ones, as they come.
   * Over the client's one WebSocket; across reconnects each durable event comes once, in order
   * (ephemeral ones may be missed). Ends when the signal fires (`BridgeAbortError`), the reader
   * breaks off, or the client closes.
   */
  subscribe(sessionId: string, options: SubscribeOptions = {}): Subscription {
    return this.#socket.subscribe(sessionId, options);
  }

  // --- files ---

  /**
   * `GET /v1/sessions/:id/files`: the directory `path` of the session's (relative to its
   * directory; default the directory itself). 400 for a path outside it.
   */
  async listFiles(sessionId: string, path = "", options?: CallOptions): Promise<FileListing> {
    const query = path === "" ? "" : `?${new URLSearchParams({ path })}`;
    return this.#http.call(
      { method: "GET", path: `${sessionPath(sessionId)}/files${query}`, schema: FileListingSchema },
      options,
    );
  }

  /**
   * `GET /v1/sessions/:id/files/content`: the file `path`'s text (its first 1 MiB when
   * `truncated`), or `binary: true`. 400 for a path outside the session directory.
   */
  async readFile(sessionId: string, path: string, options?: CallOptions): Promise<FileContent> {
    const query = new URLSearchParams({ path });
    return this.#http.call(
      {
        method: "GET",
        path: `${sessionPath(sessionId)}/files/content?${query}`,
        schema: FileContentSchema,
      },
      options,
    );
  }

  /** `GET /v1/sessions/:id/files/find`: files whose path matches `query` fuzzily, best first. */
  async findFiles(
    sessionId: string,
    query: string,
    options?: CallOptions & { limit?: number },
  ): Promise<FoundFiles> {
    const params = new URLSearchParams({ q: query });
    if (options?.limit !== undefined) params.set("limit", String(options.limit));
    return this.#http.call(
      {
        method: "GET",
        path: `${sessionPath(sessionId)}/files/find?${params}`,
        schema: FoundFilesSchema,
      },
      options,
    );
  }

  // --- terminal ---

  /**
   * `GET /v1/sessions/:id/terminal` (a WebSocket of its own): a shell in the session's
   * directory (`capabilities.terminal`). Resolves once it runs; its output, input, resize and
   * close are on the connection, which ends the shell when closed. `terminal`: the id of a
   * terminal whose socket dropped, to take it back within the sidecar's grace period (60 s);
   * a new shell when it is gone (`connection.reattached` says which).
   */
  async openTerminal(
    sessionId: string,
    options: CallOptions & { cols?: number; rows?: number; terminal?: string } = {},
  ): Promise<TerminalConnection> {
    const path = `${sessionPath(sessionId)}/terminal`;
    const Socket = this.#WebSocket;
    if (Socket === undefined) {
      throw new BridgeClientError(
        "no WebSocket in this runtime: pass one as the `WebSocket` option",
      );
    }
    const { ticket } = await this.ticket(options);
    const query: Record<string, string> = { ticket };
    if (options.cols !== undefined) query.cols = String(options.cols);
    if (options.rows !== undefined) query.rows = String(options.rows);
    if (options.terminal !== undefined) query.terminal = options.terminal;
    const signal = anySignalWithTimeout(
      options.signal === undefined ? [] : [options.signal],
      options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    );
    return await openTerminalSocket(new Socket(sidecarSocketUrl(this.#base, path, query)), signal);
  }

  /** Ends every subscription and closes the WebSocket. HTTP calls still work. */
  close(): void {
    this.#socket.close();
  }

  /** The NDJSON transcript at `<base>/transcript`, each line checked. */
  async #events(
    base: string,
    label: string,
    options: CallOptions & { after?: number },
  ): Promise<CanonicalEvent[]> {
    const query = options.after === undefined ? "" : `?after=${options.after}`;
    const text = await this.#http.call(
      { method: "GET", path: `${base}/transcript${query}`, schema: undefined },
      options,
    );
    return text
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line, index) => {
        const parsed = CanonicalEventSchema.safeParse(JSON.parse(line));
        if (!parsed.success) {
          throw new BridgeProtocolError(
            `transcript of ${label}, line ${index + 1}: not a canonical event this client knows`,
            { cause: parsed.error },
          );
        }
        return parsed.data as CanonicalEvent;
      });
  }

  async #ok(
    method: "POST" | "DELETE",
    path: string,
    body: unknown,
    options: CallOptions | undefined,
  ): Promise<void> {
    await this.#http.call(
      { method, path, schema: OkSchema, ...(body !== undefined && { body }) },
      options,
    );
  }
}

function projectPath(path: string, directory: string | undefined): string {
  return directory === undefined ? path : `${path}?directory=${encodeURIComponent(directory)}`;
}

function sessionPath(sessionId: string): string {
  if (typeof sessionId !== "string" || sessionId === "") {
    throw new BridgeClientError("a session id is required (from createSession or listSessions)");
  }
  return `/v1/sessions/${encodeURIComponent(sessionId)}`;
}

function childPath(sessionId: string, childSessionId: string): string {
  if (typeof childSessionId !== "string" || childSessionId === "") {
    throw new BridgeClientError("a child session id is required (from a subagent.started event)");
  }
  return `${sessionPath(sessionId)}/children/${encodeURIComponent(childSessionId)}`;
}
