/**
 * Connecting to an `opencode serve` that something else started. The handle has the same
 * shape as a managed one, but this process owns nothing: `close()` leaves the server
 * running, and a remote server that goes away is not noticed here (requests will fail).
 */
import { ConnectionError, UsageError } from "../errors.js";
import { throwIfAborted } from "../util/abort.js";
import { basicAuthHeader, probeHealth } from "./health.js";
import { DEFAULT_USERNAME } from "./server-env.js";
import type { OpencodeServerHandle, ServerExit } from "./server-handle.js";

/** Bound of the one health probe `attachOpencode` makes. */
export const DEFAULT_ATTACH_TIMEOUT_MS = 5_000;

export interface AttachOpencodeOptions {
  /** The server's `OPENCODE_SERVER_PASSWORD`, if it has one. */
  password?: string;
  /** The server's `OPENCODE_SERVER_USERNAME` (default `opencode`). */
  username?: string;
  signal?: AbortSignal;
  /** Bound of the health probe (default 5000 ms). */
  timeoutMs?: number;
}

/**
 * Checks once that `url` answers its health route (with the given credentials) and returns
 * a handle for it. Throws ConnectionError, TimeoutError, AbortError, OpencodeApiError (401
 * for wrong credentials), ProtocolError, or UsageError for a URL that is not http(s).
 *
 * `pid` is undefined and `logTail()` is empty. `close()` does nothing to the server; it
 * only ends the handle, and `exited` resolves then (code and signal null, `expected: true`),
 * so code that awaits `exited` after `close()` works the same for both kinds of handle.
 */
export async function attachOpencode(
  url: string,
  options: AttachOpencodeOptions = {},
): Promise<OpencodeServerHandle> {
  throwIfAborted(options.signal, `attaching to ${url}`);
  const base = normalizeUrl(url);
  const username = options.username ?? DEFAULT_USERNAME;
  const password = options.password;
  const health = await probeHealth(base, {
    authorization: password === undefined ? undefined : basicAuthHeader(username, password),
    timeoutMs: options.timeoutMs ?? DEFAULT_ATTACH_TIMEOUT_MS,
    signal: options.signal,
  });
  if (!health.healthy) {
    throw new ConnectionError(base, "the server answered its health route with healthy: false");
  }

  let endHandle: (exit: ServerExit) => void = () => {};
  const exited = new Promise<ServerExit>((resolve) => {
    endHandle = resolve;
  });
  return {
    url: base,
    username,
    password,
    version: health.version,
    pid: undefined,
    exited,
    logTail: () => [],
    close: async () => endHandle({ code: null, signal: null, logTail: [], expected: true }),
  };
}

function normalizeUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new UsageError(`${url} is not a URL; pass something like http://127.0.0.1:4096`, {
      cause: error,
    });
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new UsageError(`${url} is not an http(s) URL; pass something like http://127.0.0.1:4096`);
  }
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`;
}
