/**
 * Health probes. A server that printed its listening line is not yet ready: requests sent
 * too early have been seen to hang without an answer, so every attempt has its own bound.
 */
import { z } from "zod";
import {
  ConnectionError,
  OpencodeApiError,
  OpencodeBridgeError,
  ProtocolError,
  TimeoutError,
} from "../errors.js";
import { sleep, withDeadline } from "../util/abort.js";

/** The health route every 1.x server answers (the newer `/api/health` is not in all of them). */
export const HEALTH_PATH = "/global/health";

/** Bound of one probe attempt while waiting for a server to come up. */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 2_000;

const HealthBody = z.looseObject({ healthy: z.boolean(), version: z.string().optional() });

/** What `GET /global/health` said. */
export interface HealthStatus {
  healthy: boolean;
  version: string | undefined;
}

export { basicAuthHeader } from "../util/basic-auth.js";

export interface ProbeOptions {
  /** `Authorization` header value, when the server has a password. */
  authorization?: string | undefined;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/**
 * One bounded `GET <url>/global/health`. Throws ConnectionError, TimeoutError, AbortError,
 * OpencodeApiError (non-2xx, for example 401 for a wrong password) or ProtocolError.
 */
export async function probeHealth(url: string, options: ProbeOptions): Promise<HealthStatus> {
  const target = `${url}${HEALTH_PATH}`;
  const deadline = withDeadline(`GET ${target}`, options.timeoutMs, options.signal);
  try {
    const headers: Record<string, string> = { accept: "application/json" };
    if (options.authorization !== undefined) headers.authorization = options.authorization;
    let response: Response;
    try {
      response = await fetch(target, { headers, signal: deadline.signal });
    } catch (error) {
      if (deadline.signal.aborted) throw deadline.classify(error);
      throw new ConnectionError(target, "health probe could not connect", { cause: error });
    }
    const text = await response.text().catch((error: unknown) => {
      if (deadline.signal.aborted) throw deadline.classify(error);
      throw new ConnectionError(target, "health response broke off", { cause: error });
    });
    if (!response.ok) {
      throw new OpencodeApiError({
        status: response.status,
        errorName: response.status === 401 ? "Unauthorized" : `HTTP ${response.status}`,
        message:
          response.status === 401 ? "wrong or missing password" : text.slice(0, 300) || "no body",
        body: text,
        url: target,
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new ProtocolError(`GET ${target}`, [], text, { cause: error });
    }
    const parsed = HealthBody.safeParse(json);
    if (!parsed.success) throw new ProtocolError(`GET ${target}`, parsed.error.issues, json);
    return { healthy: parsed.data.healthy, version: parsed.data.version };
  } finally {
    deadline.dispose();
  }
}

export interface WaitForHealthOptions {
  authorization?: string | undefined;
  /** Ends the wait (the caller's overall bound and abort). */
  signal: AbortSignal;
  attemptTimeoutMs?: number;
  retryDelayMs?: number;
  /** Called with each failed attempt's error, for logging. */
  onAttemptFailed?: (error: unknown) => void;
}

/**
 * Probes until the server says it is healthy. Retries what a server still starting up
 * produces (refused connections, hung attempts, 5xx, `healthy: false`); a 4xx or a
 * malformed answer will not get better and is thrown at once.
 */
export async function waitForHealth(
  url: string,
  options: WaitForHealthOptions,
): Promise<HealthStatus> {
  const attemptTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  for (;;) {
    let failure: unknown;
    try {
      const status = await probeHealth(url, {
        authorization: options.authorization,
        timeoutMs: attemptTimeoutMs,
        signal: options.signal,
      });
      if (status.healthy) return status;
      failure = new OpencodeBridgeError(`${url}${HEALTH_PATH} answered healthy: false`);
    } catch (error) {
      if (options.signal.aborted || !isTransient(error)) throw error;
      failure = error;
    }
    options.onAttemptFailed?.(failure);
    await sleep(options.retryDelayMs ?? 100, options.signal, "waiting for health");
  }
}

function isTransient(error: unknown): boolean {
  if (error instanceof ConnectionError || error instanceof TimeoutError) return true;
  return error instanceof OpencodeApiError && error.status >= 500;
}
