/**
 * Which sidecar a command drives: `--url` (else `$OCB_URL`) with the token in `$OCB_TOKEN`,
 * else the one the running `ocb serve` announced in its connection file. Never a token on
 * the command line: every user of the machine sees it in `ps`.
 */
import { OpencodeBridgeError, UsageError } from "../errors.js";
import { isProcessRunning } from "../util/process-liveness.js";
import { readServeConnection, serveConnectionPath } from "./serve-connection-file.js";

/** The sidecar's URL and token, and the connection file they came from, if they did. */
export interface SidecarTarget {
  url: string;
  token: string;
  /** The Unix socket the sidecar listens on (`ocb serve --socket`); `url` is then its base. */
  socketPath?: string;
  /** Absent when the URL was given (`--url`, `$OCB_URL`). */
  file?: { path: string; pid: number };
}

/** The base URL of a client of a sidecar on a Unix socket (what it answers to: `Host: localhost`). */
const SOCKET_BASE_URL = "http://localhost";

/** No sidecar to drive: none announced, or the one announced is gone or does not answer. */
export class NoSidecarError extends OpencodeBridgeError {}

export const URL_OPTION_HELP =
  "the sidecar's URL, its token in $OCB_TOKEN (default: $OCB_URL, else the `ocb serve` running on this machine)";

/** How to point a command at a sidecar, for the messages that say none was found. */
export const HOW_TO_REACH =
  "start `ocb serve`, or pass --url (or set OCB_URL) with the sidecar's token in OCB_TOKEN";

export function sidecarTarget(
  urlOption: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  options: { path?: string; isRunning?: (pid: number) => boolean } = {},
): SidecarTarget {
  const fromEnv = env.OCB_URL === "" ? undefined : env.OCB_URL;
  const url = urlOption ?? fromEnv;
  if (url !== undefined) {
    const where = urlOption === undefined ? "OCB_URL" : "--url";
    checkUrl(url, where);
    const token = env.OCB_TOKEN;
    if (token === undefined || token === "") {
      throw new UsageError(
        `${where} needs the sidecar's token in OCB_TOKEN (never on the command line, where \`ps\` shows it)`,
      );
    }
    return { url, token };
  }
  const path = options.path ?? serveConnectionPath(env);
  const connection = readServeConnection(path);
  if (connection === undefined) {
    throw new NoSidecarError(`no running \`ocb serve\` found (no ${path}): ${HOW_TO_REACH}`);
  }
  const { pid } = connection;
  if (!(options.isRunning ?? isProcessRunning)(pid)) {
    throw new NoSidecarError(
      `the \`ocb serve\` that ${path} names (pid ${pid}, ${connection.url}, started ${new Date(connection.startedAt).toISOString()}) is no longer running: ${HOW_TO_REACH}`,
    );
  }
  if (connection.socketPath !== undefined) {
    // Every call goes to the socket: the URL only names the paths (`unixSocketTransport`).
    return {
      url: SOCKET_BASE_URL,
      token: connection.token,
      socketPath: connection.socketPath,
      file: { path, pid },
    };
  }
  return { url: connection.url, token: connection.token, file: { path, pid } };
}

/** An http(s) URL, as `ocb serve` prints it; the client would refuse anything else less clearly. */
function checkUrl(url: string, where: string): void {
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== "http:" && protocol !== "https:") {
    throw new UsageError(
      `${where} must be the sidecar's http(s) URL, as \`ocb serve\` prints it (http://127.0.0.1:PORT); got ${JSON.stringify(url)}`,
    );
  }
}
