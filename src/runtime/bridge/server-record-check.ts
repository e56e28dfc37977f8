/**
 * A managed server's record is read back from the store by the next bridge, and acted on: its
 * `url` gets the server's password (Basic auth), its `pid`'s process group is signalled, its
 * `root` is deleted recursively, its `keeper` socket is linked to. A store may be shared (a
 * cluster's Postgres) or copied: whoever can write it must not get a password sent to their
 * listener, a process killed, or a directory of their choosing deleted. So a record is used
 * only when each of these is what a bridge of this user on this machine writes: a url on
 * loopback (or the hostname servers are started on), a pid that can lead a group, a root that
 * is an isolated temp root (`<tmpdir>/ocb-opencode-*`, a real directory of this user) or the
 * configured kept root, a keeper socket in a keeper's temp directory.
 */
import { lstat, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { ISOLATED_DIR_PREFIX } from "../../server/isolated-dirs.js";
import { KEEPER_DIR_PREFIX, KEEPER_SOCKET_NAME } from "../../server/server-keeper.js";
import { isLoopbackHost } from "../../util/loopback-host.js";

/** The fields of a server record that are acted on. */
export interface RecordedPlaces {
  url: string;
  pid: number;
  root?: string | undefined;
  keeper?: string | undefined;
}

/** What this bridge would have recorded: where it starts servers. */
export interface ExpectedPlaces {
  /** The interface its servers listen on (`StartOpencodeOptions.hostname`, default loopback). */
  hostname?: string | undefined;
  /** Its kept root (`StartOpencodeOptions.dataDir`), if any. */
  dataDir?: string | undefined;
}

/** Why the record is not one this bridge could have written (for a log line), or undefined. */
export async function serverRecordProblem(
  record: RecordedPlaces,
  expected: ExpectedPlaces,
): Promise<string | undefined> {
  if (!Number.isSafeInteger(record.pid) || record.pid <= 1) {
    return `its pid ${record.pid} is no process group a server could lead`;
  }
  const urlProblem = serverUrlProblem(record.url, expected.hostname);
  if (urlProblem !== undefined) return urlProblem;
  if (record.root !== undefined) {
    const rootProblem = await isolatedRootProblem(record.root, expected.dataDir);
    if (rootProblem !== undefined) return rootProblem;
  }
  if (record.keeper !== undefined && !(await isKeeperSocket(record.keeper))) {
    return `its keeper socket ${record.keeper} is not in a keeper's directory (${join(tmpdir(), `${KEEPER_DIR_PREFIX}*`)})`;
  }
  return undefined;
}

function serverUrlProblem(url: string, hostname: string | undefined): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "its url is not a URL";
  }
  const bare =
    (parsed.protocol === "http:" || parsed.protocol === "https:") &&
    parsed.username === "" &&
    parsed.password === "" &&
    parsed.pathname === "/" &&
    parsed.search === "" &&
    parsed.hash === "";
  if (!bare) return "its url is not a bare http(s) origin";
  const host = parsed.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const started = (hostname ?? "127.0.0.1").replace(/^\[|\]$/g, "").toLowerCase();
  if (isLoopbackHost(host) || host === started) return undefined;
  return (
    `its url's host ${parsed.hostname} is not this machine's loopback (nor the hostname its ` +
    "servers are started on): the server's password would be sent there"
  );
}

/** A temp root this bridge makes for an isolated server, or the kept root it was given. */
async function isolatedRootProblem(
  root: string,
  dataDir: string | undefined,
): Promise<string | undefined> {
  const refused = `its root ${root} is not a directory this bridge makes for an isolated server (${join(tmpdir(), `${ISOLATED_DIR_PREFIX}*`)}, or its kept --opencode-data): it would be deleted`;
  let real: string;
  try {
    const stat = await lstat(root);
    if (!stat.isDirectory()) return refused; // a symlink too: lstat does not follow it
    const uid = process.getuid?.();
    if (uid !== undefined && stat.uid !== uid) return refused;
    real = await realpath(root);
  } catch {
    return `its root ${root} does not exist (any more)`;
  }
  if (dataDir !== undefined && real === (await realOrResolved(dataDir))) return undefined;
  const inTemp = dirname(real) === (await realOrResolved(tmpdir()));
  return inTemp && basename(real).startsWith(ISOLATED_DIR_PREFIX) ? undefined : refused;
}

async function isKeeperSocket(socket: string): Promise<boolean> {
  const path = resolve(socket);
  const dir = dirname(path);
  if (basename(path) !== KEEPER_SOCKET_NAME || !basename(dir).startsWith(KEEPER_DIR_PREFIX)) {
    return false;
  }
  // The keeper's directory may be gone (its keeper too): then linking fails, harmlessly.
  return (await realOrResolved(dirname(dir))) === (await realOrResolved(tmpdir()));
}

async function realOrResolved(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return resolve(path);
  }
}
