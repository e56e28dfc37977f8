/**
 * The fetch-based transport: one bounded, abortable HTTP request per operation,
 * Basic auth, and reconnecting event streams. It hands back bodies exactly as the server
 * sent them (the client unwraps `{data}`), so a recording of it is faithful to the wire.
 */
import { ConnectionError, OpencodeBridgeError, ProtocolError } from "../errors.js";
import { UNPARSED_TYPE } from "../opencode-protocol/parse-safely.js";
import { withDeadline } from "../util/abort.js";
import type { BackoffOptions } from "../util/backoff.js";
import { basicAuthHeader } from "../util/basic-auth.js";
import { type Logger, silentLogger } from "../util/logger.js";
import { apiErrorFrom } from "./api-error.js";
import { buildHttpRequest, type HttpRequestParts } from "./http-request.js";
import { readSse } from "./sse-reader.js";
import { streamFrameValue, type UnparsedFrame } from "./stream-frame.js";
import type {
  CallOptions,
  OperationCall,
  SocketTarget,
  StreamOptions,
  Transport,
} from "./transport.js";

export interface HttpTransportOptions {
  /** Base URL of the server, for example `http://127.0.0.1:4096`. */
  url: string;
  password?: string | undefined;
  /** Basic auth user name; OpenCode's default is `opencode`. */
  username?: string;
  /** Default bound for each request (default 30 s). */
  timeoutMs?: number;
  /** Default idle bound for event streams (default 30 s). */
  idleTimeoutMs?: number;
  /** Delays between an event stream's reconnect attempts (default 250 ms doubling to 10 s). */
  reconnectBackoff?: Omit<BackoffOptions, "random">;
  logger?: Logger;
  fetch?: typeof fetch;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** Talks to a real OpenCode server over HTTP. */
export class HttpTransport implements Transport {
  readonly url: string;
  readonly #authorization: string | undefined;
  readonly #timeoutMs: number;
  readonly #idleTimeoutMs: number | undefined;
  readonly #reconnectBackoff: Omit<BackoffOptions, "random"> | undefined;
  readonly #logger: Logger;
  readonly #fetch: typeof fetch;

  constructor(options: HttpTransportOptions) {
    this.url = options.url;
    this.#authorization =
      options.password === undefined
        ? undefined
        : basicAuthHeader(options.username ?? "opencode", options.password);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#idleTimeoutMs = options.idleTimeoutMs;
    this.#reconnectBackoff = options.reconnectBackoff;
    this.#logger = options.logger ?? silentLogger;
    this.#fetch = options.fetch ?? fetch;
  }

  async request(call: OperationCall, options: CallOptions = {}): Promise<unknown> {
    const parts = buildHttpRequest(this.url, call);
    const where = `${parts.method} ${parts.url.pathname}`;
    const deadline = withDeadline(where, options.timeoutMs ?? this.#timeoutMs, options.signal);
    try {
      let response: Response;
      try {
        response = await this.#fetch(parts.url, {
          method: parts.method,
          headers: this.#withAuth(parts.headers),
          ...(parts.body === undefined ? {} : { body: parts.body }),
          signal: deadline.signal,
        });
      } catch (error) {
        throw this.#failure(deadline.classify(error), parts.url, "could not reach the server");
      }
      let text: string;
      try {
        text = await response.text();
      } catch (error) {
        throw this.#failure(deadline.classify(error), parts.url, "the response broke off");
      }
      if (!response.ok) {
        throw apiErrorFrom(response.status, response.statusText, parts.url.toString(), text);
      }
      this.#logger.debug("opencode call", { operation: call.operation, status: response.status });
      if (response.status === 204 || text.length === 0) return undefined;
      return parseJson(text, where);
    } finally {
      deadline.dispose();
    }
  }

  async *stream(next: () => OperationCall, options: StreamOptions = {}): AsyncIterable<unknown> {
    let where = "event stream";
    let current: HttpRequestParts | undefined;
    const messages = readSse({
      // The reader asks for the URL, then the headers, before each connect: `next()` is
      // called once per connect (a recorder sees one call per connect, not two).
      url: () => {
        current = buildHttpRequest(this.url, next());
        where = `GET ${current.url.pathname}`;
        return current.url;
      },
      headers: () => this.#withAuth({ ...current?.headers, accept: "text/event-stream" }),
      ...(options.signal ? { signal: options.signal } : {}),
      ...this.#idleBound(options),
      ...(options.connectTimeoutMs === undefined
        ? {}
        : { connectTimeoutMs: options.connectTimeoutMs }),
      ...(options.maxConsecutiveFailures === undefined
        ? {}
        : { maxConsecutiveFailures: options.maxConsecutiveFailures }),
      ...(options.onConnection === undefined ? {} : { onConnection: options.onConnection }),
      ...(this.#reconnectBackoff === undefined ? {} : { backoff: this.#reconnectBackoff }),
      fetch: this.#fetch,
      logger: this.#logger,
    });
    for await (const message of messages) {
      if (message.data.length === 0) continue;
      const frame = streamFrameValue(message.data);
      if (isUnparsed(frame)) {
        this.#logger.warn("an event-stream frame was not JSON; it is kept as `unparsed`", {
          where,
          error: frame.error,
          length: frame.data.length,
        });
      }
      yield frame;
    }
  }

  #idleBound(options: StreamOptions): { idleTimeoutMs?: number } {
    const idle = options.idleTimeoutMs ?? this.#idleTimeoutMs;
    return idle === undefined ? {} : { idleTimeoutMs: idle };
  }

  socketTarget(call: OperationCall): SocketTarget {
    const parts = buildHttpRequest(this.url, call);
    const url = new URL(parts.url);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    return { url: url.toString(), headers: this.#withAuth(parts.headers) };
  }

  #withAuth(headers: Record<string, string>): Record<string, string> {
    return this.#authorization ? { ...headers, authorization: this.#authorization } : headers;
  }

  #failure(classified: unknown, url: URL, what: string): unknown {
    if (classified instanceof OpencodeBridgeError) return classified;
    return new ConnectionError(url.toString(), what, { cause: classified });
  }
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ProtocolError(
      `${where} response`,
      [{ path: [], message: `not JSON: ${text.slice(0, 120)}` }],
      text,
      { cause: error },
    );
  }
}

function isUnparsed(frame: unknown): frame is UnparsedFrame {
  return (frame as Partial<UnparsedFrame> | null)?.type === UNPARSED_TYPE;
}
