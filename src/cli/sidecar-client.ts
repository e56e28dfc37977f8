/**
 * The typed client of the sidecar a command drives (`sidecarTarget`), for the length of one
 * command. Its calls are plain HTTP: no WebSocket is needed, so none is given.
 */
import type { Command } from "commander";
import {
  BridgeClient,
  BridgeClientError,
  BridgeConnectionError,
  BridgeTimeoutError,
} from "../client/index.js";
import { OpencodeBridgeError } from "../errors.js";
import { unixSocketTransport } from "../tunnel/unix-socket-transport.js";
import {
  HOW_TO_REACH,
  NoSidecarError,
  type SidecarTarget,
  sidecarTarget,
  URL_OPTION_HELP,
} from "./sidecar-target.js";
import { terminalLine } from "./terminal-text.js";

/**
 * Bound on each call: past the sidecar's own bound on a request (60 s), so that its answer, an
 * error included, comes first; one that never answers is given up on after it.
 */
const CALL_TIMEOUT_MS = 90_000;

/** A call to the sidecar failed: refused (its code and status in the message), cut, or late. */
export class SidecarCallError extends OpencodeBridgeError {}

/** The option every command that drives a sidecar takes. */
export interface SidecarOptions {
  url?: string;
}

/** Adds `--url` to `command`. */
export function addUrlOption(command: Command): Command {
  return command.option("--url <url>", URL_OPTION_HELP);
}

/**
 * Runs `use` with a client of the sidecar that `options` (else the environment, else the
 * connection file) names. A sidecar found through the connection file that does not answer
 * is reported as such, with the file, rather than as a failed call.
 */
export async function withSidecar<T>(
  options: SidecarOptions,
  use: (client: BridgeClient) => Promise<T>,
): Promise<T> {
  const target = sidecarTarget(options.url);
  const socket =
    target.socketPath === undefined ? undefined : unixSocketTransport(target.socketPath);
  const client = new BridgeClient({
    url: target.url,
    token: target.token,
    timeoutMs: CALL_TIMEOUT_MS,
    ...(socket === undefined ? {} : { fetch: socket.fetch }),
  });
  try {
    return await use(client);
  } catch (error) {
    throw commandError(error, target);
  } finally {
    client.close();
    socket?.close();
  }
}

/**
 * What a failed call ends the command with: one line (an answer from something that is not a
 * sidecar, an HTML page at a wrong --url, may have many). A sidecar found through the
 * connection file that does not answer is reported as such, with the file.
 */
function commandError(error: unknown, target: SidecarTarget): unknown {
  if (!(error instanceof BridgeClientError)) return error;
  const timedOut = error instanceof BridgeTimeoutError;
  if (target.file !== undefined && (timedOut || error instanceof BridgeConnectionError)) {
    const why = timedOut ? `no answer within ${CALL_TIMEOUT_MS / 1000} s` : "no connection";
    return new NoSidecarError(
      `the \`ocb serve\` that ${target.file.path} names (pid ${target.file.pid}) does not answer at ${target.socketPath ?? target.url} (${why}): ${HOW_TO_REACH}`,
      { cause: error },
    );
  }
  return new SidecarCallError(terminalLine(error.message), { cause: error });
}
