/**
 * The error hierarchy of opencode-bridge. Every error the library throws is an
 * `OpencodeBridgeError`; the subclasses say which kind of failure it was, and
 * `cause` always carries the underlying error when there is one.
 */
export interface BridgeErrorOptions {
  cause?: unknown;
}

/** Base class of every error thrown by opencode-bridge. */
export class OpencodeBridgeError extends Error {
  constructor(message: string, options: BridgeErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}

/** The server answered with a non-2xx status. */
export class OpencodeApiError extends OpencodeBridgeError {
  readonly status: number;
  /** The error name the server gave (for example `NotFoundError`), or `HTTP <status>`. */
  readonly errorName: string;
  readonly body: unknown;
  readonly url: string;
  /** True when repeating the same request later may succeed (429, 5xx). */
  readonly retryable: boolean;

  constructor(fields: {
    status: number;
    errorName: string;
    message: string;
    body: unknown;
    url: string;
    cause?: unknown;
  }) {
    super(`${fields.url} answered ${fields.status} ${fields.errorName}: ${fields.message}`, {
      cause: fields.cause,
    });
    this.status = fields.status;
    this.errorName = fields.errorName;
    this.body = fields.body;
    this.url = fields.url;
    this.retryable = fields.status === 408 || fields.status === 429 || fields.status >= 500;
  }
}

/** The server could not be reached, or the connection broke mid-response. */
export class ConnectionError extends OpencodeBridgeError {
  readonly url: string;
  constructor(url: string, message: string, options: BridgeErrorOptions = {}) {
    super(`${message} (${url})`, options);
    this.url = url;
  }
}

/**
 * A prompt's request broke off (or timed out) every time it was sent, so whether the server
 * admitted the input is unknown. If it did, its turn (`turnId`) runs and shows on the
 * session's events: look for `inputId` there before sending the text again.
 */
export class SendOutcomeUnknownError extends ConnectionError {
  readonly inputId: string;
  readonly turnId: string;
  constructor(
    url: string,
    fields: { inputId: string; turnId: string; attempts: number },
    options: BridgeErrorOptions = {},
  ) {
    super(
      url,
      `the prompt of input ${fields.inputId} got no answer in ${fields.attempts} attempts, so whether ` +
        `the server admitted it is unknown; if it did, turn ${fields.turnId} runs: look for ` +
        `input ${fields.inputId} in the session's events before sending it again`,
      options,
    );
    this.inputId = fields.inputId;
    this.turnId = fields.turnId;
  }
}

/** A bounded wait ran out. */
export class TimeoutError extends OpencodeBridgeError {
  readonly timeoutMs: number;
  constructor(what: string, timeoutMs: number, options: BridgeErrorOptions = {}) {
    super(`${what} did not finish within ${timeoutMs} ms`, options);
    this.timeoutMs = timeoutMs;
  }
}

/** The caller's `AbortSignal` fired. */
export class AbortError extends OpencodeBridgeError {
  constructor(what: string, options: BridgeErrorOptions = {}) {
    super(`${what} was aborted`, options);
  }
}

/** One reason a value failed its schema (zod issues have this shape). */
export interface ProtocolIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** "path: message; …" for the first few issues, for error messages. */
export function formatIssues(issues: readonly ProtocolIssue[], root = "(root)"): string {
  return issues
    .slice(0, 5)
    .map((issue) => `${issue.path.map(String).join(".") || root}: ${issue.message}`)
    .join("; ");
}

/** The server sent something that does not match the schema we rely on. */
export class ProtocolError extends OpencodeBridgeError {
  readonly issues: readonly ProtocolIssue[];
  readonly received: unknown;
  constructor(
    what: string,
    issues: readonly ProtocolIssue[],
    received: unknown,
    options: BridgeErrorOptions = {},
  ) {
    super(`${what} did not match the expected schema: ${formatIssues(issues)}`, options);
    this.issues = issues;
    this.received = received;
  }
}

/** A managed `opencode serve` did not become ready, or could not be started at all. */
export class ServerStartError extends OpencodeBridgeError {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The last lines the process printed (stdout and stderr interleaved), secrets removed. */
  readonly logTail: string[];
  constructor(
    message: string,
    fields: {
      exitCode?: number | null;
      signal?: NodeJS.Signals | null;
      logTail?: string[];
      cause?: unknown;
    } = {},
  ) {
    const tail = fields.logTail ?? [];
    const shown = tail.length > 0 ? `\n--- last output ---\n${tail.join("\n")}` : "";
    super(`${message}${shown}`, { cause: fields.cause });
    this.exitCode = fields.exitCode ?? null;
    this.signal = fields.signal ?? null;
    this.logTail = tail;
  }
}

/** The caller passed something invalid; the message says what and how to fix it. */
export class UsageError extends OpencodeBridgeError {}

/** The model is not in the server's loaded catalog; `candidates` are the closest it has. */
export class UnknownModelError extends UsageError {
  /** `provider/model` as asked for. */
  readonly model: string;
  /** Up to five `provider/model` names of the catalog closest to `model`, closest first. */
  readonly candidates: readonly string[];
  constructor(model: string, candidates: readonly string[], options: BridgeErrorOptions = {}) {
    const hint =
      candidates.length > 0
        ? `closest: ${candidates.join(", ")}`
        : "check the provider config (the server's `provider` section and credentials)";
    super(`model ${model} is not in the server's model catalog; ${hint}`, options);
    this.model = model;
    this.candidates = candidates;
  }
}
