/**
 * The scripted model's HTTP server: an OpenAI-compatible endpoint on
 * `node:http` that records every request and answers chat completions as the
 * directives in the prompt say (see directives.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { AbortError, ProtocolError, ServerStartError, UsageError } from "../../errors.js";
import { sleep, withDeadline } from "../../util/abort.js";
import { type Logger, silentLogger } from "../../util/logger.js";
import { type ChatRequest, ChatRequestSchema } from "./chat-request.js";
import {
  completionBody,
  estimateUsage,
  type ResponseIdentity,
  writeChunks,
} from "./openai-stream.js";
import { type RecordedRequest, recordChat, recordOther } from "./recorded-request.js";
import { type MessageReply, planReply, type ReplyState } from "./reply-plan.js";

/** The one model the scripted server offers. */
export const scriptedModelId = "demo-1";
/** Every model id the scripted server answers to (they all behave the same). */
export const scriptedModelIds: readonly string[] = [scriptedModelId, "demo-2"];

/** Options of `startScriptedModel`. */
export interface ScriptedModelOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Interface to listen on; default `127.0.0.1`. */
  host?: string;
  /** Receives a debug line per request; silent by default. */
  logger?: Logger;
  /** Replaces the `echo: <text>` answer to prompts without directives. */
  defaultReply?: string;
  /**
   * How many of the latest requests `requests` keeps (default: all, as tests read them). A
   * long-running demo keeps a few, or it grows with every turn (images arrive inline).
   */
  keepRequests?: number;
}

/** Options of `waitForRequests`. */
export interface WaitForRequestsOptions {
  /** Bound on the wait; default 30 s (a cold `opencode` start takes several seconds). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** A running scripted model server. */
export interface ScriptedModel {
  /** Base URL for an OpenAI-compatible client, ending in `/v1`. */
  readonly url: string;
  readonly port: number;
  /**
   * Every request received so far (the latest `keepRequests` of them, when set), in arrival
   * order (including 400s and 404s).
   */
  readonly requests: RecordedRequest[];
  /** How many requests arrived in all (kept or not). */
  readonly received: number;
  /** Stops listening, cuts every open connection (hung requests included) and resolves once closed. */
  close(): Promise<void>;
  /**
   * Resolves with a snapshot of `requests` once at least `n` requests arrived.
   * Rejects with `TimeoutError`, or `AbortError` when the signal fires or the server closes first.
   */
  waitForRequests(n: number, options?: WaitForRequestsOptions): Promise<RecordedRequest[]>;
}

const defaultWaitMs = 30_000;
/** Images arrive inline as data URLs, so bodies can be large; anything bigger is a client bug. */
const maxBodyBytes = 64 * 1024 * 1024;

interface Waiter {
  count: number;
  resolve(requests: RecordedRequest[]): void;
  reject(error: unknown): void;
}

/**
 * Starts the scripted model (an OpenAI-compatible server whose replies are
 * chosen by `[[directives]]` in the prompt) and resolves once it listens.
 */
export async function startScriptedModel(
  options: ScriptedModelOptions = {},
): Promise<ScriptedModel> {
  const host = options.host ?? "127.0.0.1";
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error): void =>
      reject(
        new ServerStartError(
          `The scripted model could not listen on ${host}:${options.port ?? 0}`,
          {
            cause: error,
          },
        ),
      );
    server.once("error", onError);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
  return new ScriptedModelServer(server, host, options);
}

class ScriptedModelServer implements ScriptedModel {
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[] = [];
  #received = 0;

  private readonly logger: Logger;
  private readonly keepRequests: number;
  private readonly defaultReply: string | undefined;
  private readonly sockets = new Set<Socket>();
  /** One controller per open response; aborting it stops pending `[[slow]]` waits. */
  private readonly responses = new Set<AbortController>();
  private readonly waiters = new Set<Waiter>();
  private readonly failures = new Map<string, number>();
  private toolCalls = 0;
  private responseCount = 0;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly server: Server,
    host: string,
    options: ScriptedModelOptions,
  ) {
    this.logger = options.logger ?? silentLogger;
    this.defaultReply = options.defaultReply;
    this.keepRequests = options.keepRequests ?? Number.POSITIVE_INFINITY;
    const address = server.address();
    this.port = typeof address === "object" && address !== null ? address.port : 0;
    this.url = `http://${host.includes(":") ? `[${host}]` : host}:${this.port}/v1`;
    server.on("connection", (socket: Socket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    });
    server.on("request", (request: IncomingMessage, response: ServerResponse) =>
      this.handle(request, response),
    );
    this.logger.info("scripted model listening", { url: this.url });
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      // The callback fires once every connection is gone, which the loops below force.
      this.server.close(() => resolve());
      for (const controller of this.responses) controller.abort();
      for (const socket of this.sockets) socket.destroy();
      for (const waiter of this.waiters) {
        waiter.reject(
          new AbortError(`waiting for ${waiter.count} scripted model requests (the server closed)`),
        );
      }
      this.waiters.clear();
    });
    return this.closing;
  }

  get received(): number {
    return this.#received;
  }

  waitForRequests(n: number, options: WaitForRequestsOptions = {}): Promise<RecordedRequest[]> {
    if (this.#received >= n) return Promise.resolve(this.requests.slice());
    const what = `waiting for ${n} scripted model requests (${this.#received} so far)`;
    if (this.closing) return Promise.reject(new AbortError(`${what}: the server is closed`));
    const deadline = withDeadline(what, options.timeoutMs ?? defaultWaitMs, options.signal);
    return new Promise<RecordedRequest[]>((resolve, reject) => {
      const waiter: Waiter = {
        count: n,
        resolve: (requests) => {
          settle();
          resolve(requests);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      };
      const onDeadline = (): void => waiter.reject(deadline.classify(deadline.signal.reason));
      const settle = (): void => {
        this.waiters.delete(waiter);
        deadline.signal.removeEventListener("abort", onDeadline);
        deadline.dispose();
      };
      if (deadline.signal.aborted) return onDeadline();
      deadline.signal.addEventListener("abort", onDeadline, { once: true });
      this.waiters.add(waiter);
    });
  }

  private record(request: RecordedRequest): void {
    this.#received++;
    this.requests.push(request);
    if (this.requests.length > this.keepRequests) this.requests.shift();
    this.logger.debug("scripted model request", {
      method: request.method,
      path: request.path,
      lastUserText: request.lastUserText,
    });
    for (const waiter of this.waiters) {
      if (this.#received >= waiter.count) waiter.resolve(this.requests.slice());
    }
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const controller = new AbortController();
    this.responses.add(controller);
    // "close" fires both when the response ended and when the client went away.
    response.once("close", () => {
      controller.abort();
      this.responses.delete(controller);
    });
    this.respond(request, response, controller.signal).catch((error: unknown) => {
      if (controller.signal.aborted) return; // The client left or the server closed: nobody to tell.
      this.logger.warn("scripted model failed to answer", { error: String(error) });
      if (response.headersSent) response.destroy();
      else sendError(response, 500, String(error), "server_error");
    });
  }

  private async respond(
    request: IncomingMessage,
    response: ServerResponse,
    signal: AbortSignal,
  ): Promise<void> {
    const method = request.method ?? "GET";
    const path = new URL(request.url ?? "/", "http://scripted.invalid").pathname;
    const raw = await readBody(request);
    if (raw === undefined) {
      this.record(recordOther(method, path, undefined));
      sendError(
        response,
        413,
        `The request body exceeds ${maxBodyBytes} bytes`,
        "invalid_request_error",
      );
      return;
    }

    if (method === "GET" && path === "/v1/models") {
      this.record(recordOther(method, path, raw === "" ? undefined : raw));
      sendJson(response, 200, {
        object: "list",
        data: scriptedModelIds.map((id) => ({ id, object: "model", owned_by: "scripted" })),
      });
      return;
    }
    if (method !== "POST" || path !== "/v1/chat/completions") {
      this.record(recordOther(method, path, raw === "" ? undefined : raw));
      sendError(response, 404, `No route for ${method} ${path}`, "not_found_error");
      return;
    }

    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch (error) {
      this.record(recordOther(method, path, raw));
      const reason = error instanceof Error ? error.message : String(error);
      sendError(
        response,
        400,
        `The request body is not valid JSON: ${reason}`,
        "invalid_request_error",
      );
      return;
    }
    const parsed = ChatRequestSchema.safeParse(body);
    if (!parsed.success) {
      this.record(recordOther(method, path, body));
      const problem = new ProtocolError("The chat completion request", parsed.error.issues, body);
      sendError(response, 400, problem.message, "invalid_request_error");
      return;
    }
    this.record(recordChat(method, path, body, parsed.data));
    await this.answer(parsed.data, response, signal);
  }

  private async answer(
    chat: ChatRequest,
    response: ServerResponse,
    signal: AbortSignal,
  ): Promise<void> {
    let reply: ReturnType<typeof planReply>;
    try {
      reply = planReply(chat, this.replyState, { defaultReply: this.defaultReply });
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      sendError(response, 400, error.message, "invalid_request_error");
      return;
    }
    switch (reply.kind) {
      case "hang":
        return; // The response stays open until the client leaves or close() cuts it.
      case "error":
        sendJson(response, reply.status, reply.body);
        return;
      case "message":
        if (chat.stream === true) await this.stream(chat, reply, response, signal);
        else await this.complete(chat, reply, response, signal);
        return;
    }
  }

  private async stream(
    chat: ChatRequest,
    reply: MessageReply,
    response: ServerResponse,
    signal: AbortSignal,
  ): Promise<void> {
    response.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    response.flushHeaders();
    const usage = estimateUsage(chat.messages, reply);
    const write = (text: string): void => {
      if (!response.destroyed) response.write(text);
    };
    await writeChunks(reply, this.identity(chat), usage, write, signal);
    response.end();
  }

  private async complete(
    chat: ChatRequest,
    reply: MessageReply,
    response: ServerResponse,
    signal: AbortSignal,
  ): Promise<void> {
    // The whole answer takes as long as its streamed form would have.
    const wait = reply.delayMs * reply.content.length;
    if (wait > 0) await sleep(wait, signal, "scripted model reply");
    const usage = estimateUsage(chat.messages, reply);
    sendJson(response, 200, completionBody(reply, this.identity(chat), usage));
  }

  private identity(chat: ChatRequest): ResponseIdentity {
    this.responseCount += 1;
    return {
      id: `chatcmpl-${this.responseCount}`,
      model: chat.model ?? scriptedModelId,
      created: Math.floor(Date.now() / 1000),
    };
  }

  private readonly replyState: ReplyState = {
    nextToolCallId: () => {
      this.toolCalls += 1;
      return `call_${this.toolCalls}`;
    },
    countFailure: (key) => {
      const count = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, count);
      return count;
    },
  };
}

/** Reads the whole body as UTF-8; `undefined` when it is larger than the limit. */
async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > maxBodyBytes) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  if (response.destroyed) return;
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

/** Errors in OpenAI's shape, so AI SDK clients surface the message. */
function sendError(response: ServerResponse, status: number, message: string, type: string): void {
  sendJson(response, status, { error: { message, type } });
}
