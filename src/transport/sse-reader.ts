/**
 * A reconnecting Server-Sent Events reader over `fetch`. It treats every way a stream
 * can stop (normal end, silence, dropped socket, 5xx) as a disconnect and reconnects
 * with backoff, asking the caller for a fresh URL each time so a cursor can advance.
 * Only the caller's signal, a non-retryable answer, or too many failures in a row end it.
 */
import { createParser, type ParseError } from "eventsource-parser";
import { AbortError, ConnectionError, ProtocolError, TimeoutError, UsageError } from "../errors.js";
import { sleep, throwIfAborted } from "../util/abort.js";
import { Backoff, type BackoffOptions } from "../util/backoff.js";
import { describeError } from "../util/describe-error.js";
import { type Logger, silentLogger } from "../util/logger.js";
import { apiErrorFrom } from "./api-error.js";
import type { StreamConnectionChange } from "./transport.js";

/** One event as the server framed it; `event` and `id` are `undefined` when the frame had none. */
export interface SseMessage {
  event: string | undefined;
  id: string | undefined;
  data: string;
}

export interface SseReaderOptions {
  /** Asked before every (re)connect, so a cursor (`after=<seq>`) can advance. */
  url: () => string | URL;
  /** Asked before every (re)connect; merged over `accept: text/event-stream`. */
  headers?: () => Record<string, string>;
  /** Aborting it closes the socket at once and ends the iteration with `AbortError`. */
  signal?: AbortSignal;
  /** No bytes at all (heartbeat comments count) for this long while waiting: reconnect. Default 30 000. */
  idleTimeoutMs?: number;
  /**
   * Bound on getting the response headers; default `idleTimeoutMs`. OpenCode's durable
   * stream withholds its headers until the first event, so running out counts as idleness
   * (a reconnect), not as a failure.
   */
  connectTimeoutMs?: number;
  /** Reconnect delays; defaults 250 ms doubling to 10 s, ±20 % jitter. */
  backoff?: Omit<BackoffOptions, "random">;
  /**
   * Failed attempts in a row (network error, 408/429/5xx) after which the iteration throws
   * `ConnectionError` with the last failure as `cause`. Default 10 (about 45 s with the
   * default backoff). A 2xx event-stream response resets the count; idle timeouts and
   * normal ends of stream do not count. `Infinity` retries forever.
   */
  maxConsecutiveFailures?: number;
  /**
   * Told how the connection fares: `connected` at each 2xx event-stream response,
   * `reconnecting` after each failed attempt (network error, 408/429/5xx) with the count of
   * failures in a row. Idle timeouts and normal ends of stream are routine and not reported.
   */
  onConnection?: (change: SseConnectionChange) => void;
  /** Injectable for tests and custom agents. Default: the global `fetch`. */
  fetch?: typeof fetch;
  logger?: Logger;
}

/** What `onConnection` is told. */
export type SseConnectionChange = StreamConnectionChange;

export const SSE_DEFAULTS = {
  idleTimeoutMs: 30_000,
  maxConsecutiveFailures: 10,
} as const;

interface Settings {
  url: () => string | URL;
  headers: () => Record<string, string>;
  signal: AbortSignal | undefined;
  idleTimeoutMs: number;
  connectTimeoutMs: number;
  backoff: Backoff;
  maxConsecutiveFailures: number;
  onConnection: (change: SseConnectionChange) => void;
  fetch: typeof fetch;
  logger: Logger;
}

/** How one connection ended when the reader should try again. */
type Outcome =
  | { kind: "disconnected"; reason: string; connected: boolean; messages: number }
  | {
      kind: "failed";
      reason: string;
      error: unknown;
      retryAfterMs: number | undefined;
      connected: boolean;
      messages: number;
    };

/**
 * Reads an SSE endpoint as an endless stream of messages, reconnecting on its own.
 *
 * Ends only by: the consumer leaving the loop (quietly; the socket is closed), the
 * signal firing (rejects with `AbortError`), a non-retryable HTTP status (`OpencodeApiError`),
 * a 2xx that is not `text/event-stream` (`ProtocolError`), or `maxConsecutiveFailures`
 * failures in a row (`ConnectionError`). Option errors throw `UsageError` right away.
 */
export function readSse(options: SseReaderOptions): AsyncGenerator<SseMessage, void, undefined> {
  return run(resolveSettings(options));
}

function resolveSettings(options: SseReaderOptions): Settings {
  const idleTimeoutMs = options.idleTimeoutMs ?? SSE_DEFAULTS.idleTimeoutMs;
  const connectTimeoutMs = options.connectTimeoutMs ?? idleTimeoutMs;
  const maxConsecutiveFailures =
    options.maxConsecutiveFailures ?? SSE_DEFAULTS.maxConsecutiveFailures;
  for (const [name, value] of [
    ["idleTimeoutMs", idleTimeoutMs],
    ["connectTimeoutMs", connectTimeoutMs],
  ] as const) {
    if (!(value > 0)) {
      throw new UsageError(`${name} must be > 0 (Infinity for no bound), got ${value}`);
    }
  }
  if (!(maxConsecutiveFailures >= 1)) {
    throw new UsageError(
      `maxConsecutiveFailures must be >= 1 (Infinity for no limit), got ${maxConsecutiveFailures}`,
    );
  }
  return {
    url: options.url,
    headers: options.headers ?? (() => ({})),
    signal: options.signal,
    idleTimeoutMs,
    connectTimeoutMs,
    backoff: new Backoff(options.backoff),
    maxConsecutiveFailures,
    onConnection: options.onConnection ?? (() => {}),
    fetch: options.fetch ?? fetch,
    logger: options.logger ?? silentLogger,
  };
}

async function* run(settings: Settings): AsyncGenerator<SseMessage, void, undefined> {
  const { backoff, logger } = settings;
  let failures = 0;
  for (;;) {
    throwIfAborted(settings.signal, "SSE stream");
    const url = String(settings.url());
    const outcome = yield* connectOnce(settings, url);
    if (outcome.messages > 0) backoff.reset();
    if (outcome.connected) failures = 0;
    let delayMs = backoff.next();
    if (outcome.kind === "failed") {
      failures += 1;
      if (failures >= settings.maxConsecutiveFailures) {
        throw new ConnectionError(
          redact(url),
          `SSE stream failed ${failures} times in a row (last: ${outcome.reason})`,
          { cause: outcome.error },
        );
      }
      if (outcome.retryAfterMs !== undefined) {
        delayMs = Math.max(delayMs, Math.min(outcome.retryAfterMs, backoff.maxMs));
      }
      settings.onConnection({
        state: "reconnecting",
        attempt: failures,
        reason: outcome.reason,
        retryInMs: delayMs,
      });
    }
    logger.warn("SSE stream disconnected, reconnecting", {
      url: redact(url),
      attempt: backoff.attempt,
      reason: outcome.reason,
      delayMs,
      consecutiveFailures: failures,
    });
    await sleep(delayMs, settings.signal, `SSE stream ${redact(url)}`);
  }
}

/**
 * One connection: yields its messages and returns how it ended. Throws for what must
 * not be retried. Whatever happens, its `finally` closes the socket and clears the timer.
 */
async function* connectOnce(
  settings: Settings,
  url: string,
): AsyncGenerator<SseMessage, Outcome, undefined> {
  const { signal, logger } = settings;
  const connection = new Connection(signal, logger);
  let connected = false;
  let messages = 0;
  const abortError = (): AbortError =>
    new AbortError(`SSE stream ${redact(url)}`, { cause: signal?.reason });
  /** Classifies a rejected wait: the caller's abort, one of our timers, or a real failure. */
  const interrupted = (error: unknown): Outcome => {
    if (signal?.aborted) throw abortError();
    const reason: unknown = connection.signal.reason;
    if (connection.signal.aborted && reason instanceof TimeoutError) {
      return { kind: "disconnected", reason: reason.message, connected, messages };
    }
    return {
      kind: "failed",
      reason: describeError(error),
      error,
      retryAfterMs: undefined,
      connected,
      messages,
    };
  };

  try {
    // One timer bounds headers, an error body, and the status checks; the idle timer takes over after.
    connection.arm(
      settings.connectTimeoutMs,
      () => new TimeoutError("SSE response headers", settings.connectTimeoutMs),
    );
    let response: Response;
    try {
      // Headers, not a spread, so a caller's `Accept` replaces ours instead of joining it.
      const headers = new Headers({ accept: "text/event-stream", "cache-control": "no-cache" });
      for (const [name, value] of Object.entries(settings.headers())) headers.set(name, value);
      const doFetch = settings.fetch;
      response = await doFetch(url, { headers, signal: connection.signal });
    } catch (error) {
      return interrupted(error);
    }

    if (!response.ok) {
      let text: string | undefined;
      try {
        text = await response.text();
      } catch (error) {
        // The status decides what happens next; a body we could not read only costs detail.
        if (signal?.aborted) throw abortError();
        logger.debug("SSE error body could not be read", {
          url: redact(url),
          status: response.status,
          error: describeError(error),
        });
      }
      const apiError = apiErrorFrom(response.status, response.statusText, redact(url), text ?? "");
      if (!apiError.retryable) throw apiError;
      return {
        kind: "failed",
        reason: `HTTP ${response.status} ${apiError.errorName}`,
        error: apiError,
        retryAfterMs: retryAfterMs(response.headers.get("retry-after")),
        connected,
        messages,
      };
    }

    const contentType = response.headers.get("content-type");
    if (!contentType?.toLowerCase().startsWith("text/event-stream") || response.body === null) {
      throw new ProtocolError(
        `SSE response from ${redact(url)}`,
        [
          {
            path: ["content-type"],
            message: `expected a text/event-stream body, got ${contentType ?? "no content type"}${response.body === null ? " and no body" : ""}`,
          },
        ],
        { status: response.status, contentType },
      );
    }
    connected = true;
    connection.disarm();
    logger.debug("SSE stream connected", { url: redact(url), status: response.status });
    settings.onConnection({ state: "connected" });

    const pending: SseMessage[] = [];
    const parser = createParser({
      onEvent: (event) => pending.push({ event: event.event, id: event.id, data: event.data }),
      onRetry: (retryMs) =>
        logger.debug("SSE server suggested a retry interval; the reader's own backoff applies", {
          url: redact(url),
          retryMs,
        }),
      onError: (error: ParseError) =>
        logger.debug("SSE parser skipped a line", {
          url: redact(url),
          type: error.type,
          field: error.field,
          line: error.line,
        }),
    });
    const decoder = new TextDecoder();
    const reader = connection.adopt(response.body);
    let endsInCr = false;

    for (;;) {
      // The idle bound only runs while we wait on the network, so a slow consumer
      // holding a message is not mistaken for a silent server.
      connection.arm(
        settings.idleTimeoutMs,
        () =>
          new TimeoutError(
            "SSE idle wait (no bytes, not even a heartbeat)",
            settings.idleTimeoutMs,
          ),
      );
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        return interrupted(error);
      } finally {
        connection.disarm();
      }
      if (chunk.done && !endsInCr) {
        // An unterminated last frame is discarded, as the SSE spec says.
        return { kind: "disconnected", reason: "the server ended the stream", connected, messages };
      }
      // The parser holds a trailing CR back, since a LF may follow it; at the end of the stream
      // none will, so a LF completes it as the one line end it was (the blank line that ends
      // a frame, with CR line endings). It ends no frame a CR did not end.
      const text = chunk.done ? "\n" : decoder.decode(chunk.value, { stream: true });
      if (text.length > 0) endsInCr = text.endsWith("\r");
      parser.feed(text);
      for (const message of pending.splice(0)) {
        if (signal?.aborted) throw abortError();
        messages += 1;
        yield message;
      }
      if (chunk.done) {
        return { kind: "disconnected", reason: "the server ended the stream", connected, messages };
      }
    }
  } finally {
    connection.close();
  }
}

/** The resources of one connection: its abort controller, its single timer, its body reader. */
class Connection {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  private readonly onCallerAbort = (): void => {
    // Close the socket now, even if the consumer is busy with a message and not reading.
    this.controller.abort(this.callerSignal?.reason);
  };

  constructor(
    private readonly callerSignal: AbortSignal | undefined,
    private readonly logger: Logger,
  ) {
    if (callerSignal?.aborted) this.onCallerAbort();
    else callerSignal?.addEventListener("abort", this.onCallerAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** (Re)starts the single timer; when it runs out the connection is aborted with `reason()`. */
  arm(ms: number, reason: () => Error): void {
    this.disarm();
    if (!Number.isFinite(ms)) return;
    this.timer = setTimeout(() => this.controller.abort(reason()), ms);
  }

  disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  adopt(body: ReadableStream<Uint8Array>): ReadableStreamDefaultReader<Uint8Array> {
    this.reader = body.getReader();
    return this.reader;
  }

  close(): void {
    this.disarm();
    this.callerSignal?.removeEventListener("abort", this.onCallerAbort);
    this.reader?.cancel().catch((error: unknown) => {
      // Expected when the stream was already errored by our own abort; nothing is lost.
      this.logger.debug("SSE body cancel failed", { error: describeError(error) });
    });
    if (!this.controller.signal.aborted) {
      this.controller.abort(new Error("SSE connection closed by the reader"));
    }
  }
}

/** `Retry-After` as milliseconds (delta-seconds or an HTTP date), or undefined. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The URL without credentials, for logs and errors. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.toString();
  } catch {
    return url;
  }
}
