/**
 * The sidecar's errors: one class carrying an API error code, and the mapping of everything
 * else a handler may throw (library errors, fastify's own, zod issues) to a code and a status.
 * An answer never carries a stack trace; an unexpected error is logged and answered `internal`.
 */
import {
  AbortError,
  ConnectionError,
  OpencodeApiError,
  OpencodeBridgeError,
  ProtocolError,
  ServerStartError,
  TimeoutError,
  UnknownModelError,
  UsageError,
} from "../errors.js";
import { ERROR_STATUS, type ErrorBody, type ErrorCode } from "../wire/http.js";

/** An error the API answers as it is: its code, a message that says what to do, details. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: unknown; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? {} : { cause: options.cause });
    this.name = "ApiError";
    this.code = code;
    this.details = options.details;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  body(): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details === undefined ? {} : { details: this.details }),
      },
    };
  }
}

/** The error shapes fastify itself throws (body parsing, limits, validation). */
interface FastifyishError {
  code?: unknown;
  statusCode?: unknown;
  message?: unknown;
  validation?: unknown;
  validationContext?: unknown;
}

/**
 * What a thrown value means for the client. `unexpected` marks the ones worth a log line at
 * error level (a bug or an upstream failure), never a client's mistake.
 */
export function toApiError(error: unknown): { error: ApiError; unexpected: boolean } {
  if (error instanceof ApiError) return { error, unexpected: false };
  const fastify = fromFastify(error);
  if (fastify !== undefined) return { error: fastify, unexpected: false };
  if (error instanceof UnknownModelError) {
    return {
      error: new ApiError("invalid_request", error.message, { cause: error }),
      unexpected: false,
    };
  }
  if (error instanceof UsageError) return { error: fromUsageError(error), unexpected: false };
  if (error instanceof AbortError || error instanceof TimeoutError) {
    return {
      error: new ApiError("unavailable", `${error.message}; try again`, { cause: error }),
      unexpected: false,
    };
  }
  if (
    error instanceof OpencodeApiError ||
    error instanceof ConnectionError ||
    error instanceof ProtocolError ||
    error instanceof ServerStartError
  ) {
    return {
      error: new ApiError("upstream", `OpenCode failed: ${error.message}`, { cause: error }),
      unexpected: true,
    };
  }
  if (error instanceof OpencodeBridgeError) {
    return { error: new ApiError("internal", error.message, { cause: error }), unexpected: true };
  }
  return {
    error: new ApiError("internal", "internal error; the sidecar's log has the details", {
      cause: error,
    }),
    unexpected: true,
  };
}

/**
 * The library reports a caller's mistake as `UsageError`; a few of them mean something more
 * precise over HTTP. The routes check the common cases first (a session or an ask that is not
 * there); this catches the ones only the library can tell.
 */
const USAGE_CODES: ReadonlyArray<readonly [RegExp, ErrorCode]> = [
  [/^no session .* in the store/, "not_found"],
  [/^no (permission|question) ask .* is waiting/, "not_found"],
  [/^no queued input /, "not_found"],
  [/^no input \S+ in OpenCode's session/, "not_found"],
  [/^session \S+ has no input /, "not_found"],
  [/still exists: there is nothing to continue/, "conflict"],
  [/^session \S+'s OpenCode session \S+ no longer exists/, "conflict"],
  [/^no turn \S+ in session /, "not_found"],
  [/^no OpenCode session /, "not_found"],
  [/ messages, too many to import$/, "too_large"],
  [/^session \S+ is busy/, "conflict"],
  [/^nothing to redo in session /, "conflict"],
  [/^input \S+ was sent already/, "conflict"],
  [/was killed; it cannot be (opened|forked)|^session \S+ is closed/, "conflict"],
  [/ is \d+ bytes, over the limit of \d+ bytes/, "too_large"],
  [/^the \S+ backend (cannot|attaches local files only)/, "unsupported"],
];

function fromUsageError(error: UsageError): ApiError {
  const code = USAGE_CODES.find(([pattern]) => pattern.test(error.message))?.[1];
  return new ApiError(code ?? "invalid_request", error.message, { cause: error });
}

function fromFastify(error: unknown): ApiError | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { code, statusCode, message, validation, validationContext } = error as FastifyishError;
  const text = typeof message === "string" ? message : "";
  if (validation !== undefined) {
    const where = typeof validationContext === "string" ? validationContext : "request";
    return new ApiError("invalid_request", `the ${where} does not match the API: ${text}`, {
      details: validation,
    });
  }
  switch (code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new ApiError("bad_json", `the body is not valid JSON (${text}); send a JSON object`);
    case "FST_ERR_CTP_BODY_TOO_LARGE":
    case "FST_REQ_FILE_TOO_LARGE":
    case "FST_FILES_LIMIT":
    case "FST_PARTS_LIMIT":
    case "FST_FIELDS_LIMIT":
      return new ApiError("too_large", `${text}; send less (see the limits in docs/sidecar.md)`);
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new ApiError(
        "invalid_request",
        `${text}; send application/json (or multipart/form-data for inputs with files)`,
      );
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new ApiError("invalid_request", `${text}; the Content-Length does not match the body`);
    case "FST_INVALID_MULTIPART_CONTENT_TYPE":
      return new ApiError("invalid_request", `${text}; send multipart/form-data`);
    default:
      break;
  }
  if (typeof statusCode === "number" && statusCode >= 400 && statusCode < 500 && text !== "") {
    if (statusCode === 413) return new ApiError("too_large", text);
    if (statusCode === 404) return new ApiError("not_found", text);
    return new ApiError("invalid_request", text);
  }
  return undefined;
}
