/**
 * One HTTP call to the sidecar: the token, a bound and the caller's signal, the JSON error
 * body turned into a `BridgeApiError`, and the answer checked against its schema (lenient:
 * fields a newer sidecar adds pass through). Global `fetch` unless one is passed.
 */
import type { z } from "zod";
import { deadlineOf } from "./deadline.js";
import { BridgeApiError, BridgeConnectionError, BridgeProtocolError } from "./errors.js";

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** What every call of the client takes. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Bound on the whole call, answer included (default: the client's `timeoutMs`). */
  timeoutMs?: number;
}

export interface HttpRequest<S extends z.ZodType | undefined> {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Under the base URL, e.g. `/v1/sessions`. */
  path: string;
  /** JSON-encoded, unless it is `FormData` (multipart). */
  body?: unknown;
  /** The schema of a 2xx answer's JSON; undefined: the answer's text is returned as is. */
  schema: S;
  /** Statuses besides 2xx whose body is an answer, not an error (`/healthz`'s 503). */
  answerStatuses?: readonly number[];
}

type Answer<S> = S extends z.ZodType ? z.output<S> : string;

export class HttpCaller {
  readonly #base: URL;
  readonly #token: string;
  readonly #fetch: FetchLike;
  readonly #timeoutMs: number;

  constructor(fields: { base: URL; token: string; fetch: FetchLike; timeoutMs: number }) {
    this.#base = fields.base;
    this.#token = fields.token;
    this.#fetch = fields.fetch;
    this.#timeoutMs = fields.timeoutMs;
  }

  async call<S extends z.ZodType | undefined>(
    request: HttpRequest<S>,
    options: CallOptions = {},
  ): Promise<Answer<S>> {
    const { response, body: text } = await this.#exchange(request, options, (answer) =>
      answer.text(),
    );
    if (!response.ok && !request.answerStatuses?.includes(response.status)) {
      throw apiErrorOf(response, text);
    }
    if (request.schema === undefined) return text as Answer<S>;
    return parseAnswer(request.schema, text, `${request.method} ${request.path}`) as Answer<S>;
  }

  /** A `GET` whose 2xx answer is bytes (an image): the body as a `Blob`, typed as served. */
  async blob(path: string, options: CallOptions = {}): Promise<Blob> {
    const { response, body } = await this.#exchange(
      { method: "GET", path },
      options,
      (answer): Promise<Blob | string> => (answer.ok ? answer.blob() : answer.text()),
    );
    if (typeof body === "string") throw apiErrorOf(response, body);
    return body;
  }

  /** Sends `request` with the token and a bound; the answer and its body, read within it. */
  async #exchange<B>(
    request: Pick<HttpRequest<undefined>, "method" | "path" | "body">,
    options: CallOptions,
    readBody: (response: Response) => Promise<B>,
  ): Promise<{ response: Response; body: B }> {
    const url = this.url(request.path);
    const what = `${request.method} ${request.path}`;
    const deadline = deadlineOf(what, options.timeoutMs ?? this.#timeoutMs, options.signal);
    try {
      const headers: Record<string, string> = { authorization: `Bearer ${this.#token}` };
      let body: RequestInit["body"];
      if (request.body instanceof FormData) body = request.body;
      else if (request.body !== undefined) {
        headers["content-type"] = "application/json";
        body = JSON.stringify(request.body);
      }
      const response = await this.#fetch(url, {
        method: request.method,
        headers,
        signal: deadline.signal,
        ...(body !== undefined && { body }),
      });
      return { response, body: await readBody(response) };
    } catch (error) {
      if (deadline.signal.aborted) throw deadline.classify(error);
      throw new BridgeConnectionError(
        `${what}: the sidecar at ${this.#base.origin} could not be reached or cut the ` +
          `connection (${error instanceof Error ? error.message : String(error)})`,
        { cause: error },
      );
    } finally {
      deadline.dispose();
    }
  }

  /** `path` (with its query, if any) under the base URL, which may have a path prefix. */
  url(path: string): string {
    const url = new URL(this.#base.href);
    const [pathname = "", query] = path.split("?", 2);
    url.pathname = `${url.pathname.replace(/\/+$/, "")}${pathname}`;
    url.search = query === undefined ? "" : `?${query}`;
    return url.href;
  }
}

function parseAnswer(schema: z.ZodType, text: string, what: string): unknown {
  let json: unknown;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch (error) {
    throw new BridgeProtocolError(`${what}: the answer is not JSON: ${text.slice(0, 120)}`, {
      cause: error,
    });
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
    .join("; ");
  throw new BridgeProtocolError(
    `${what}: the answer does not fit this client (${issues}); is the sidecar another version?`,
    { cause: parsed.error },
  );
}

/** The error a non-2xx answer means: its JSON error body, or what can be said without one. */
function apiErrorOf(response: Response, text: string): BridgeApiError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const error =
    typeof body === "object" && body !== null && "error" in body
      ? (body as { error: unknown }).error
      : undefined;
  if (typeof error === "object" && error !== null) {
    const { code, message, details } = error as Record<string, unknown>;
    if (typeof code === "string" && typeof message === "string") {
      return new BridgeApiError({
        status: response.status,
        code,
        message,
        ...(details !== undefined && { details }),
      });
    }
  }
  return new BridgeApiError({
    status: response.status,
    code: `http_${response.status}`,
    message: text.trim().slice(0, 200) || response.statusText || "no error body",
  });
}
