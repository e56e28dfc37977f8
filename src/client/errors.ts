/**
 * The errors of the sidecar client: a branch of the library's one hierarchy (`src/errors.ts`,
 * isomorphic like the client), so `instanceof OpencodeBridgeError` holds for every error either
 * throws. One base for the client, one subclass per kind of failure, the underlying error always
 * in `cause`.
 */
import { OpencodeBridgeError } from "../errors.js";
import { ERROR_STATUS } from "../wire/http.js";

/** Base class of every error `opencode-bridge/client` throws. */
export class BridgeClientError extends OpencodeBridgeError {}

/**
 * The sidecar refused a request: its JSON error body (`{ error: { code, message, details } }`)
 * with the HTTP status. Errors sent over the WebSocket carry the status their code has over HTTP.
 */
export class BridgeApiError extends BridgeClientError {
  readonly status: number;
  /** `not_found`, `invalid_request`, `unauthorized`, … (see docs/sidecar.md). */
  readonly code: string;
  /** For `invalid_request`: the schema's issues. */
  readonly details: unknown;

  constructor(fields: {
    status: number;
    code: string;
    message: string;
    details?: unknown;
    cause?: unknown;
  }) {
    super(`${fields.message} (${fields.code}, ${fields.status})`, { cause: fields.cause });
    this.status = fields.status;
    this.code = fields.code;
    this.details = fields.details;
  }

  /** True when the same request may succeed later (the server or OpenCode was down). */
  get retryable(): boolean {
    return this.status === 408 || this.status === 429 || this.status >= 500;
  }
}

/** The sidecar could not be reached, or the connection broke before its answer arrived. */
export class BridgeConnectionError extends BridgeClientError {}

/** A call's bound ran out (`timeoutMs`). */
export class BridgeTimeoutError extends BridgeClientError {
  readonly timeoutMs: number;
  constructor(what: string, timeoutMs: number, options: { cause?: unknown } = {}) {
    super(`${what} did not finish within ${timeoutMs} ms`, options);
    this.timeoutMs = timeoutMs;
  }
}

/** The caller's `AbortSignal` fired. */
export class BridgeAbortError extends BridgeClientError {
  constructor(what: string, options: { cause?: unknown } = {}) {
    super(`${what} was aborted`, options);
  }
}

/** The sidecar answered something this client does not understand (a version mismatch?). */
export class BridgeProtocolError extends BridgeClientError {}

/**
 * The HTTP status of an error that came without one (over the WebSocket): the API's codes
 * have theirs; the stream's own (docs/sidecar-streams.md) the status they would have.
 */
export function statusOfCode(code: string): number {
  if (Object.hasOwn(ERROR_STATUS, code)) return ERROR_STATUS[code as keyof typeof ERROR_STATUS];
  return Object.hasOwn(STREAM_ERROR_STATUS, code) ? (STREAM_ERROR_STATUS[code] as number) : 400;
}

const STREAM_ERROR_STATUS: Readonly<Record<string, number>> = {
  after_out_of_range: 409,
  already_subscribed: 409,
  not_subscribed: 409,
  session_closed: 409,
  too_many_subscriptions: 429,
  stream_failed: 502,
};
