/**
 * The connection file of `ocb serve`: the URL and token of the last sidecar started, so that
 * the commands that drive one (`ocb changes`, `ocb undo`, …) find it with no flags on this
 * machine. One file, `serve/connection.json` in the bridge's data directory, readable by the
 * user alone (it holds the token). The last `ocb serve` started owns it and removes it when it
 * stops, if the file still names it; a serve killed outright leaves it, which its pid then
 * tells. Its directory is hidden from a sandboxed agent (`sandboxOf`): with the token, a model
 * talked round could answer its own permission asks through the API.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import { OpencodeBridgeError } from "../errors.js";
import { describeError } from "../util/describe-error.js";
import { bridgeDataDir } from "../util/user-data-dir.js";

const ServeConnectionSchema = z.object({
  url: z.string().min(1),
  token: z.string().min(1),
  /** The `ocb serve` process: gone means the file is stale. */
  pid: z.number().int().positive(),
  /** When it started listening (ms since the epoch), for the messages. */
  startedAt: z.number(),
  /** The Unix socket it listens on (`--socket`); `url` is then `unix:<path>`, for messages. */
  socketPath: z.string().min(1).optional(),
});

/** Where a running `ocb serve` listens, and its token. */
export type ServeConnection = z.infer<typeof ServeConnectionSchema>;

/** What `ocb serve` announces; the file adds its pid and start. */
export type ServeConnectionFields = Pick<ServeConnection, "url" | "token" | "socketPath">;

/** A connection file that cannot be read or is not one (written by hand, cut short, …). */
export class ConnectionFileError extends OpencodeBridgeError {}

/** `serve/` in the bridge's data directory (`$XDG_DATA_HOME/opencode-bridge`). */
export function serveConnectionDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return join(bridgeDataDir(env), "serve");
}

/** `serve/connection.json` in the bridge's data directory. */
export function serveConnectionPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(serveConnectionDirectory(env), "connection.json");
}

/**
 * The connection file's directory, made now if it is not there yet: a sandbox can hide only
 * what exists when it starts, and a file written into a hidden directory later stays hidden.
 */
export function madeServeConnectionDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const directory = serveConnectionDirectory(env);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  return directory;
}

/** Writes `connection` to `path`, mode 0600; a reader never sees half a file. */
export function writeServeConnection(path: string, connection: ServeConnection): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${connection.pid}.tmp`;
  // A mode applies to a file created, not to one there: a leftover of the same pid goes first.
  rmSync(temporary, { force: true });
  writeFileSync(temporary, `${JSON.stringify(connection)}\n`, { mode: 0o600, flag: "wx" });
  renameSync(temporary, path);
}

/** The connection in `path`; undefined when there is no file. */
export function readServeConnection(path: string): ServeConnection | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ConnectionFileError(`cannot read ${path}: ${describeError(error)}`, {
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw notAConnectionFile(path, "not JSON", error);
  }
  const parsed = ServeConnectionSchema.safeParse(json);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => issue.path.join(".") || "(root)");
    throw notAConnectionFile(path, `bad ${[...new Set(fields)].join(", ")}`, parsed.error);
  }
  return parsed.data;
}

/**
 * Removes the file at `path` if it still names process `pid`: a serve started since owns it
 * now. Never throws: it runs while stopping, when nothing can be done about it.
 */
export function removeServeConnection(path: string, pid: number): void {
  try {
    if (readServeConnection(path)?.pid === pid) rmSync(path, { force: true });
  } catch {
    // Unreadable or not ours to judge: leave it; a reader reports what is wrong with it.
  }
}

/** A connection file this process wrote, until `dispose` removes it. */
export interface AnnouncedServe {
  readonly path: string;
  dispose(): void;
}

/**
 * Writes this process's connection file and removes it again when `dispose` is called or the
 * process exits without calling it (a second Ctrl-C exits at once).
 */
export function announceServe(
  fields: ServeConnectionFields,
  path: string = serveConnectionPath(),
): AnnouncedServe {
  const pid = process.pid;
  writeServeConnection(path, { ...fields, pid, startedAt: Date.now() });
  const remove = (): void => removeServeConnection(path, pid);
  process.once("exit", remove);
  return {
    path,
    dispose() {
      process.off("exit", remove);
      remove();
    },
  };
}

function notAConnectionFile(path: string, why: string, cause: unknown): ConnectionFileError {
  return new ConnectionFileError(
    `${path} is not a connection file of \`ocb serve\` (${why}); remove it and start \`ocb serve\` again, or pass --url with the token in OCB_TOKEN`,
    { cause },
  );
}
