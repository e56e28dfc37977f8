/**
 * A Unix socket for the sidecar to listen on instead of a TCP port (`socketPath`): nothing on
 * the network can connect, nor any other user of the machine: the socket is made 0600, in a
 * directory that must be the user's alone (mode 700), under directories nobody else can
 * rename. Otherwise (`/tmp` itself, a shared directory) another user could put their own
 * socket at the path first, or in its place later, and be handed the token by every client.
 */
import { chmodSync, lstatSync, realpathSync, rmSync, type Stats } from "node:fs";
import { connect } from "node:net";
import { dirname, resolve } from "node:path";
import { UsageError } from "../errors.js";
import { PRIVATE_FILE_MODE } from "../store/private-files.js";

/** Linux's bound on a socket's path (`sun_path`, 108 bytes with its terminating zero). */
const MAX_SOCKET_PATH_BYTES = 107;

/** How long a leftover socket file may take to refuse a connection before it is called in use. */
const PROBE_TIMEOUT_MS = 2_000;

/**
 * The absolute path, once it is safe to listen there: its directory the user's own and closed
 * to others, and nothing at the path but a leftover socket nobody listens on (removed).
 */
export async function prepareSocketPath(path: string): Promise<string> {
  const absolute = resolve(path);
  if (Buffer.byteLength(absolute) > MAX_SOCKET_PATH_BYTES) {
    throw new UsageError(
      `the socket path ${absolute} is longer than a Unix socket's path may be (${MAX_SOCKET_PATH_BYTES} bytes): choose a shorter one, e.g. in $XDG_RUNTIME_DIR`,
    );
  }
  checkDirectory(dirname(absolute));
  const existing = lstatSync(absolute, { throwIfNoEntry: false });
  if (existing === undefined) return absolute;
  if (!existing.isSocket()) {
    throw new UsageError(
      `${absolute} exists and is not a socket: the sidecar will not replace it; choose another path, or remove it`,
    );
  }
  if (await someoneListens(absolute)) {
    throw new UsageError(
      `another process listens on ${absolute} (an \`ocb serve\` still running?): stop it, or choose another path`,
    );
  }
  // Left by a sidecar that was killed outright: nobody answers there.
  rmSync(absolute, { force: true });
  return absolute;
}

/** Readable and writable by the owner alone (called once it exists, before any client). */
export function restrictSocket(path: string): void {
  chmodSync(path, PRIVATE_FILE_MODE);
}

function checkDirectory(directory: string): void {
  const stats = lstatSync(directory, { throwIfNoEntry: false });
  if (stats === undefined || !stats.isDirectory()) {
    throw new UsageError(
      `the socket's directory ${directory} does not exist: make it first (mkdir -m 700 ${directory})`,
    );
  }
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) {
    throw new UsageError(
      `the socket's directory ${directory} belongs to another user (uid ${stats.uid}): use a directory of your own, e.g. $XDG_RUNTIME_DIR`,
    );
  }
  // Closed to others altogether: they cannot reach the socket in the moment between its bind
  // and its chmod, nor put anything in its place.
  if ((stats.mode & 0o077) !== 0) {
    throw new UsageError(
      `the socket's directory ${directory} is open to other users (mode ${modeOf(stats)}): one of them could put their own socket at the path and be handed the token; use a directory only you can enter (mkdir -m 700 DIR; chmod 700 DIR; or $XDG_RUNTIME_DIR)`,
    );
  }
  checkAncestors(realpathSync(directory), uid);
}

/**
 * Every directory above the socket's, links resolved, is root's or the user's and cannot be
 * renamed by anyone else (writable by others only with the sticky bit, as /tmp): else another
 * user could move the socket's directory away and put one of their own at its name.
 */
function checkAncestors(directory: string, uid: number | undefined): void {
  for (let ancestor = dirname(directory); ; ancestor = dirname(ancestor)) {
    const stats = lstatSync(ancestor);
    const owned = uid === undefined || stats.uid === 0 || stats.uid === uid;
    const sticky = (stats.mode & 0o1000) !== 0;
    if (!owned || ((stats.mode & 0o022) !== 0 && !sticky)) {
      throw new UsageError(
        `the socket's path runs through ${ancestor} (uid ${stats.uid}, mode ${modeOf(stats)}), which another user could change: they could move the socket's directory away and put their own socket at its name; use a directory under your home or $XDG_RUNTIME_DIR`,
      );
    }
    if (ancestor === dirname(ancestor)) return;
  }
}

function modeOf(stats: Stats): string {
  return (stats.mode & 0o7777).toString(8);
}

/** Whether a connection to the socket is accepted (refused, or no answer in time: no). */
function someoneListens(path: string): Promise<boolean> {
  return new Promise((resolveListens) => {
    const socket = connect({ path });
    const done = (listens: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolveListens(listens);
    };
    // A listener that accepts nothing in time is treated as in use: never remove a live socket.
    const timer = setTimeout(() => done(true), PROBE_TIMEOUT_MS);
    socket.once("connect", () => done(true));
    // Only a refusal says nobody listens; any other failure (a full backlog: EAGAIN) may be a
    // live sidecar, whose socket must not be removed.
    socket.once("error", (error: NodeJS.ErrnoException) =>
      done(error.code !== "ECONNREFUSED" && error.code !== "ENOENT"),
    );
  });
}
