/**
 * `ocb serve --socket PATH`: the sidecar on a Unix socket instead of a TCP port (with
 * `--relay`, a sidecar nothing reaches but this machine's user and paired devices). Whatever
 * names a TCP address goes with it.
 */
import { dirname, join, resolve } from "node:path";
import { UsageError } from "../errors.js";
import { isWithin } from "../util/path-within.js";
import { madeServeConnectionDirectory } from "./serve-connection-file.js";

export interface SocketServeOptions {
  /** A path, or `true` for the default one (`--socket` with no value). */
  socket?: string | true;
  port?: string;
  host: string;
  tlsCert?: string;
  cluster?: boolean;
}

/** The host `--host` defaults to: given any other, the user asked for a TCP address. */
const DEFAULT_HOST = "127.0.0.1";

/**
 * The socket's absolute path, or undefined without `--socket`. With no path given, the
 * connection file's directory (0700, hidden from a sandboxed agent) holds it: a sandbox cannot
 * stop a connection to a socket it can see.
 */
export function socketOf(
  options: SocketServeOptions,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (options.socket === undefined) return undefined;
  if (options.socket === "") {
    throw new UsageError(
      "--socket needs a path (or none, for the default), e.g. $XDG_RUNTIME_DIR/ocb.sock",
    );
  }
  const conflicting = [
    options.port === undefined ? undefined : "--port",
    options.host === DEFAULT_HOST ? undefined : "--host",
    options.tlsCert === undefined ? undefined : "--tls-cert",
    options.cluster === true ? "--cluster" : undefined,
  ].filter((flag) => flag !== undefined);
  if (conflicting.length > 0) {
    throw new UsageError(
      `--socket listens on no TCP address: drop ${conflicting.join(", ")} (a cluster's sidecars call each other over TCP)`,
    );
  }
  if (options.socket === true) return join(madeServeConnectionDirectory(env), DEFAULT_SOCKET);
  return resolve(options.socket);
}

/** The default socket's name, in the connection file's directory. */
const DEFAULT_SOCKET = "sidecar.sock";

/**
 * With a sandbox, the socket's directory to hide from the agent (a sandbox cannot stop a
 * connection to a socket the agent sees, and in the workspace it could put its own socket in
 * its place, to be handed the token). One that holds the project directories cannot be hidden
 * without them: refused. Nothing to hide without a socket or a sandbox.
 */
export function socketDirectoryToHide(
  socketPath: string | undefined,
  sandboxed: boolean,
  projectDirectories: readonly string[],
): string | undefined {
  if (socketPath === undefined || !sandboxed) return undefined;
  const directory = dirname(socketPath);
  const held = projectDirectories.find((project) => isWithin(resolve(project), directory));
  if (held !== undefined) {
    throw new UsageError(
      `with --sandbox, the socket's directory ${directory} must not hold a project directory (${held}): the agent would see the socket; use --socket with no path (hidden from the agent), or a directory of its own`,
    );
  }
  return directory;
}
