/**
 * `ocb serve --socket PATH`: the sidecar on a Unix socket instead of a TCP port (with
 * `--relay`, a sidecar nothing reaches but this machine's user and paired devices). Whatever
 * names a TCP address goes with it.
 */
import { join, resolve } from "node:path";
import { UsageError } from "../errors.js";
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
  if (options.socket === "") throw new UsageError("--socket needs a path, e.g. ./ocb.sock");
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
