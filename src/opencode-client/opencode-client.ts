/**
 * Typed OpenCode operations over a `Transport`. Method paths follow OpenCode's own
 * operation ids (`session.create`, `v2.session.prompt`, `event.subscribe`, …) so that what a
 * call does can be looked up in the server's OpenAPI, and so a replay transport can match
 * recorded calls by the same names. Every request body is validated strictly before it is
 * sent; every response is validated leniently when it arrives.
 */
import { z } from "zod";
import {
  type ApiEvent,
  apiEventDurableSeq,
  parseApiEvent,
} from "../opencode-protocol/api/events.js";
import * as pty from "../opencode-protocol/api/pty.js";
import * as api from "../opencode-protocol/api/session.js";
import type { Parsed } from "../opencode-protocol/common.js";
import { type LegacyEvent, parseLegacyEvent } from "../opencode-protocol/legacy/events.js";
import * as lists from "../opencode-protocol/legacy/location-lists.js";
import * as legacy from "../opencode-protocol/legacy/session.js";
import * as vcs from "../opencode-protocol/legacy/vcs.js";
import { type OperationId, operations } from "../opencode-protocol/operations.js";
import type { SocketTarget, Transport } from "../transport/transport.js";
import {
  type ClientCallOptions,
  type ClientStreamOptions,
  OperationCaller,
} from "./operation-caller.js";
import { parseRequest } from "./request-validation.js";

export interface OpencodeClientOptions {
  /** The location used when a call does not name one. */
  directory?: string;
  /**
   * Bound for the blocking `session.prompt`, which answers only when the whole turn is over
   * (default 10 minutes).
   */
  blockingPromptTimeoutMs?: number;
}

const Deleted = z.boolean();
const Ok = z.boolean();

/** The typed OpenCode client. */
export class OpencodeClient {
  readonly #caller: OperationCaller;
  readonly #blockingPromptTimeoutMs: number;

  constructor(transport: Transport, options: OpencodeClientOptions = {}) {
    this.#caller = new OperationCaller(transport, options.directory);
    this.#blockingPromptTimeoutMs = options.blockingPromptTimeoutMs ?? 600_000;
  }

  /** Legacy health (`GET /global/health`). */
  readonly global = {
    health: (options?: ClientCallOptions) =>
      this.#call("global.health", {}, legacy.Health, options),
  };

  /** Legacy config. */
  readonly config = {
    /** The usable providers and their models, once the server has loaded them. */
    providers: (options?: ClientCallOptions) =>
      this.#call("config.providers", {}, legacy.ConfigProviders, options),
  };

  /** The legacy `/event` stream, every event of the location. */
  readonly event = {
    subscribe: (options: ClientStreamOptions = {}): AsyncIterable<Parsed<LegacyEvent>> =>
      this.#events("event.subscribe", () => ({}), parseLegacyEvent, options),
  };

  /** Legacy sessions (`/session/*`). */
  readonly session = {
    create: (input: legacy.SessionCreateRequest = {}, options?: ClientCallOptions) =>
      this.#call(
        "session.create",
        () => this.#body(legacy.SessionCreateRequest, input, "session.create"),
        legacy.Session,
        options,
      ),
    get: (input: { sessionID: string }, options?: ClientCallOptions) =>
      this.#call("session.get", input, legacy.Session, options),
    list: (input: { roots?: boolean; limit?: number } = {}, options?: ClientCallOptions) =>
      this.#call("session.list", input, z.array(legacy.Session), options),
    delete: (input: { sessionID: string }, options?: ClientCallOptions) =>
      this.#call("session.delete", input, Deleted, options),
    status: (options?: ClientCallOptions) =>
      this.#call("session.status", {}, z.record(z.string(), legacy.SessionStatus), options),
    messages: (input: { sessionID: string; limit?: number }, options?: ClientCallOptions) =>
      this.#call("session.messages", input, z.array(legacy.MessageWithParts), options),
    children: (input: { sessionID: string }, options?: ClientCallOptions) =>
      this.#call("session.children", input, z.array(legacy.Session), options),
    /** Blocking prompt: answers with the assistant message once the turn is over. */
    prompt: (
      input: { sessionID: string } & legacy.PromptRequest,
      options: ClientCallOptions = {},
    ) =>
      this.#call(
        "session.prompt",
        () => this.#withBody(input, legacy.PromptRequest, "session.prompt"),
        legacy.MessageWithParts,
        { timeoutMs: this.#blockingPromptTimeoutMs, ...options },
      ),
    /** Non-blocking prompt (204); the turn is followed on `event.subscribe`. */
    promptAsync: (
      input: { sessionID: string } & legacy.PromptRequest,
      options?: ClientCallOptions,
    ) =>
      this.#call(
        "session.prompt_async",
        () => this.#withBody(input, legacy.PromptRequest, "session.prompt_async"),
        z.undefined(),
        options,
      ),
    abort: (input: { sessionID: string }, options?: ClientCallOptions) =>
      this.#call("session.abort", input, Ok, options),
    /**
     * Compacts the session's legacy history into a summary written by the given model;
     * answers once that is done (bounded like the blocking prompt).
     */
    summarize: (
      input: { sessionID: string } & z.input<typeof legacy.SummarizeRequest>,
      options: ClientCallOptions = {},
    ) =>
      this.#call(
        "session.summarize",
        () => this.#withBody(input, legacy.SummarizeRequest, "session.summarize"),
        Ok,
        { timeoutMs: this.#blockingPromptTimeoutMs, ...options },
      ),
    /** The session's todo list as the `todowrite` tool last wrote it (`/api` sessions too). */
    todo: (input: { sessionID: string }, options?: ClientCallOptions) =>
      this.#call("session.todo", input, vcs.TodoList, options),
  };

  /** The location's version control: the working tree against its last commit. */
  readonly vcs = {
    get: (options?: ClientCallOptions) => this.#call("vcs.get", {}, vcs.VcsInfo, options),
    status: (options?: ClientCallOptions) =>
      this.#call("vcs.status", {}, z.array(vcs.VcsFileStatus), options),
    diff: (input: z.input<typeof vcs.VcsDiffQuery>, options?: ClientCallOptions) =>
      this.#call(
        "vcs.diff",
        () => this.#body(vcs.VcsDiffQuery, input, "vcs.diff"),
        z.array(vcs.VcsFileDiff),
        options,
      ),
  };

  /** Legacy permission asks. */
  readonly permission = {
    list: (options?: ClientCallOptions) =>
      this.#call("permission.list", {}, z.array(legacy.PermissionRequest), options),
    reply: (
      input: { requestID: string } & z.input<typeof legacy.PermissionReplyRequest>,
      options?: ClientCallOptions,
    ) =>
      this.#call(
        "permission.reply",
        () => this.#withBody(input, legacy.PermissionReplyRequest, "permission.reply"),
        Ok,
        options,
      ),
  };

  /** Legacy questions (the `question` tool). */
  readonly question = {
    list: (options?: ClientCallOptions) =>
      this.#call("question.list", {}, z.array(legacy.QuestionRequest), options),
    reply: (
      input: { requestID: string } & z.input<typeof legacy.QuestionReplyRequest>,
      options?: ClientCallOptions,
    ) =>
      this.#call(
        "question.reply",
        () => this.#withBody(input, legacy.QuestionReplyRequest, "question.reply"),
        Ok,
        options,
      ),
    reject: (input: { requestID: string }, options?: ClientCallOptions) =>
      this.#call("question.reject", input, Ok, options),
  };

  /** A location's slash commands (`directory`), skills and MCP prompts offered as commands too. */
  readonly command = {
    list: (options?: ClientCallOptions) =>
      this.#call("command.list", {}, lists.CommandList, options),
  };

  /** A location's MCP servers and their state, by name. */
  readonly mcp = {
    status: (options?: ClientCallOptions) => this.#call("mcp.status", {}, lists.McpStatus, options),
  };

  /** A location's skills. */
  readonly app = {
    skills: (options?: ClientCallOptions) => this.#call("app.skills", {}, lists.SkillList, options),
  };

  /** The `/api` surface (OpenCode's operation ids carry a `v2.` prefix). */
  readonly v2 = {
    health: {
      get: (options?: ClientCallOptions) => this.#call("v2.health.get", {}, api.Health, options),
    },
    model: {
      list: (options?: ClientCallOptions) =>
        this.#call("v2.model.list", {}, api.ModelList, options),
    },
    provider: {
      /** One provider of the catalog: a small answer, where the model list can be megabytes. */
      get: (input: { providerID: string }, options?: ClientCallOptions) =>
        this.#call("v2.provider.get", input, api.ProviderInfo, options),
    },
    agent: {
      /** The agents of a location (`directory`), hidden ones and subagents included. */
      list: (options?: ClientCallOptions) =>
        this.#call("v2.agent.list", {}, api.AgentList, options),
    },
    pty: {
      /** The location's pseudo-terminals, exited ones included until removed. */
      list: (options?: ClientCallOptions) => this.#call("v2.pty.list", {}, pty.PtyList, options),
      /** Starts a pseudo-terminal (a login shell in `cwd`, default the location). */
      create: (input: z.input<typeof pty.PtyCreateRequest>, options?: ClientCallOptions) =>
        this.#call(
          "v2.pty.create",
          () => this.#body(pty.PtyCreateRequest, input, "v2.pty.create"),
          pty.Pty,
          options,
        ),
      /** Its title or size. */
      update: (
        input: { ptyID: string } & z.input<typeof pty.PtyUpdateRequest>,
        options?: ClientCallOptions,
      ) =>
        this.#call(
          "v2.pty.update",
          () => this.#withBody(input, pty.PtyUpdateRequest, "v2.pty.update"),
          pty.Pty,
          options,
        ),
      /** Ends its shell and forgets it. */
      remove: (input: { ptyID: string }, options?: ClientCallOptions) =>
        this.#call("v2.pty.remove", input, z.unknown(), options),
      /**
       * Where its WebSocket is (`ws:` URL and the headers: auth, location), or undefined for a
       * transport that reaches no live server.
       */
      connectTarget: (input: { ptyID: string }, options: { directory?: string } = {}) =>
        this.#socketTarget("v2.pty.connect", input, options.directory),
    },
    event: {
      /** The live, global stream: deltas and durable events of every session. */
      subscribe: (options: ClientStreamOptions = {}): AsyncIterable<Parsed<ApiEvent>> =>
        this.#events("v2.event.subscribe", () => ({}), parseApiEvent, options),
    },
    session: {
      create: (input: api.SessionCreateRequest, options?: ClientCallOptions) =>
        this.#call(
          "v2.session.create",
          () => this.#body(api.SessionCreateRequest, input, "v2.session.create"),
          api.SessionInfo,
          { directory: input.location.directory, ...options },
        ),
      get: (input: { sessionID: string }, options?: ClientCallOptions) =>
        this.#call("v2.session.get", input, api.SessionInfo, options),
      active: (options?: ClientCallOptions) =>
        this.#call("v2.session.active", {}, api.ActiveSessions, options),
      /** Admits a prompt; `delivery` is required because the server's default (steer) is unsafe. */
      prompt: (input: { sessionID: string } & api.PromptRequest, options?: ClientCallOptions) =>
        this.#call(
          "v2.session.prompt",
          () => this.#withBody(input, api.PromptRequest, "v2.session.prompt"),
          api.PromptAdmitted,
          options,
        ),
      interrupt: (input: { sessionID: string }, options?: ClientCallOptions) =>
        this.#call("v2.session.interrupt", input, z.undefined(), options),
      /** One page of messages; `cursor` is the previous page's `cursor.next`. */
      messages: (
        input: { sessionID: string; limit?: number; order?: "asc" | "desc"; cursor?: string },
        options?: ClientCallOptions,
      ) => this.#call("v2.session.messages", input, api.MessagePage, options),
      revert: {
        /** Puts the files back as they were at `messageID` and marks the point (see `RevertStageRequest`). */
        stage: (
          input: { sessionID: string } & z.input<typeof api.RevertStageRequest>,
          options?: ClientCallOptions,
        ) =>
          this.#call(
            "v2.session.revert.stage",
            () => this.#withBody(input, api.RevertStageRequest, "v2.session.revert.stage"),
            api.RevertStaged,
            options,
          ),
        /** Makes the staged revert final: the messages after its point are deleted. */
        commit: (input: { sessionID: string }, options?: ClientCallOptions) =>
          this.#call("v2.session.revert.commit", input, z.undefined(), options),
        /** Takes the staged revert back: the files as they were before it, no point. */
        clear: (input: { sessionID: string }, options?: ClientCallOptions) =>
          this.#call("v2.session.revert.clear", input, z.undefined(), options),
      },
      switchModel: (
        input: { sessionID: string } & z.input<typeof api.SwitchModelRequest>,
        options?: ClientCallOptions,
      ) =>
        this.#call(
          "v2.session.switchModel",
          () => this.#withBody(input, api.SwitchModelRequest, "v2.session.switchModel"),
          z.undefined(),
          options,
        ),
      /** The agent of the following steps; OpenCode does not check the name (see `SwitchAgentRequest`). */
      switchAgent: (
        input: { sessionID: string } & z.input<typeof api.SwitchAgentRequest>,
        options?: ClientCallOptions,
      ) =>
        this.#call(
          "v2.session.switchAgent",
          () => this.#withBody(input, api.SwitchAgentRequest, "v2.session.switchAgent"),
          z.undefined(),
          options,
        ),
      permission: {
        list: (input: { sessionID: string }, options?: ClientCallOptions) =>
          this.#call(
            "v2.session.permission.list",
            input,
            z.array(api.PermissionRequestV2),
            options,
          ),
        reply: (
          input: { sessionID: string; requestID: string } & z.input<
            typeof api.PermissionReplyRequest
          >,
          options?: ClientCallOptions,
        ) =>
          this.#call(
            "v2.session.permission.reply",
            () => this.#withBody(input, api.PermissionReplyRequest, "v2.session.permission.reply"),
            z.undefined(),
            options,
          ),
      },
      question: {
        reply: (
          input: { sessionID: string; requestID: string } & z.input<
            typeof api.QuestionReplyRequest
          >,
          options?: ClientCallOptions,
        ) =>
          this.#call(
            "v2.session.question.reply",
            () => this.#withBody(input, api.QuestionReplyRequest, "v2.session.question.reply"),
            z.undefined(),
            options,
          ),
        reject: (input: { sessionID: string; requestID: string }, options?: ClientCallOptions) =>
          this.#call("v2.session.question.reject", input, z.undefined(), options),
      },
      /**
       * The durable per-session stream from `after` (exclusive). It reconnects on its own,
       * resuming after the last seq it yielded, and never yields a seq twice.
       */
      events: (
        input: { sessionID: string; after?: number },
        options: ClientStreamOptions = {},
      ): AsyncIterable<Parsed<ApiEvent>> => this.#durableEvents(input, options),
    },
  };

  #call<S extends z.ZodType>(
    operation: OperationId,
    input: Record<string, unknown> | (() => Record<string, unknown>),
    schema: S,
    options?: ClientCallOptions,
  ): Promise<z.output<S>> {
    return this.#caller.call(
      operation,
      input,
      { schema, wrapped: operations[operation].wrapped },
      options,
    );
  }

  #socketTarget(
    operation: OperationId,
    input: Record<string, unknown>,
    directory: string | undefined,
  ): SocketTarget | undefined {
    return this.#caller.socketTarget(operation, input, directory);
  }

  #events<E>(
    operation: OperationId,
    input: () => Record<string, unknown>,
    parse: (raw: unknown) => Parsed<E>,
    options: ClientStreamOptions,
  ): AsyncIterable<Parsed<E>> {
    return this.#caller.events(operation, input, parse, options);
  }

  async *#durableEvents(
    input: { sessionID: string; after?: number },
    options: ClientStreamOptions,
  ): AsyncIterable<Parsed<ApiEvent>> {
    let after = input.after ?? 0;
    const events = this.#events(
      "v2.session.events",
      () => ({ sessionID: input.sessionID, after }),
      parseApiEvent,
      options,
    );
    for await (const parsed of events) {
      const seq = apiEventDurableSeq(parsed.event);
      if (seq !== undefined) {
        // A reconnect resumes from `after`; anything at or below it was already yielded.
        if (seq <= after) continue;
        after = seq;
      }
      yield parsed;
    }
  }

  #body<S extends z.ZodType>(
    schema: S,
    input: unknown,
    operation: string,
  ): Record<string, unknown> {
    return parseRequest(schema, input, operation) as Record<string, unknown>;
  }

  #withBody<S extends z.ZodType, I extends Record<string, unknown>>(
    input: I,
    schema: S,
    operation: string,
  ): Record<string, unknown> {
    const { sessionID, requestID, ptyID, ...body } = input;
    return {
      ...(sessionID === undefined ? {} : { sessionID }),
      ...(requestID === undefined ? {} : { requestID }),
      ...(ptyID === undefined ? {} : { ptyID }),
      ...(parseRequest(schema, body, operation) as Record<string, unknown>),
    };
  }
}
