/**
 * The errors of the sidecar client. The client is isomorphic (browser and Node) and imports
 * nothing from the Node library, so it has its own small hierarchy: one base class, one
 * subclass per kind of failure, the underlying error always in `cause`.
 */

/** Base class of every error `opencode-bridge/client` throws. */
export class BridgeClientError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}

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

/** The HTTP status each error code of the API has (spec: docs/sidecar.md). */
const STATUS_OF_CODE: Readonly<Record<string, number>> = {
  bad_json: 400,
  invalid_request: 400,
  unauthorized: 401,
  bad_origin: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  bad_host: 421,
  unsupported: 422,
  internal: 500,
  upstream: 502,
};

/** The status of an error that came without one (over the WebSocket). */
export function statusOfCode(code: string): number {
  return STATUS_OF_CODE[code] ?? 400;
}
