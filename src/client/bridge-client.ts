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
  ConversationSchema,
  type CreateSessionBody,
  FileContentSchema,
  FileListingSchema,
  FoundFilesSchema,
  HealthSchema,
  ModelCatalogSchema,
  OkSchema,
  type SendInputResult,
  SendInputResultSchema,
  SessionInfoSchema,
  SessionListSchema,
  TicketSchema,
} from "../wire/http.js";
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
export type ConversationView = z.output<typeof ConversationSchema>;
export type Health = z.output<typeof HealthSchema>;
export type Ticket = z.output<typeof TicketSchema>;
/** What a send answers, with the idempotency key it went with (to retry it yourself). */
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
  async agents(options?: CallOptions): Promise<AgentInfo[]> {
    const list = await this.#http.call(
      { method: "GET", path: "/v1/agents", schema: AgentListSchema },
      options,
    );
    return list.agents;
  }

  // --- sessions ---

  /** `GET /v1/sessions`: the open sessions and the store's records. */
  async listSessions(options?: CallOptions): Promise<SessionInfo[]> {
    const list = await this.#http.call(
      { method: "GET", path: "/v1/sessions", schema: SessionListSchema },
      options,
    );
    return list.sessions;
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
   * `POST /v1/sessions/:id/revert`, undo: the session goes back to before the input, the files
   * it and every input after it changed put back; the conversation keeps those messages in
   * `undone` until `unrevert` or the next input (`capabilities.revert`; 409 while the session
   * is busy).
   */
  async revert(sessionId: string, inputId: string, options?: CallOptions): Promise<void> {
    await this.#ok("POST", `${sessionPath(sessionId)}/revert`, { inputId }, options);
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
   * close are on the connection, which ends the shell when closed.
   */
  async openTerminal(
    sessionId: string,
    options: CallOptions & { cols?: number; rows?: number } = {},
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
