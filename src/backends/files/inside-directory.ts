/**
 * The one rule for a local path a caller names on a session's behalf (an attachment, a file
 * listed or read): it must lie inside the session directory, both as written and with every
 * symlink resolved, so `..`, an absolute path elsewhere and a symlink pointing out (to /etc,
 * /proc, another checkout) are all refused. Every refusal is a `UsageError` whose message says
 * what was wrong.
 */
import { realpath } from "node:fs/promises";
import { resolve } from "node:path";
import { UsageError } from "../../errors.js";
import { isWithin } from "../../util/path-within.js";

/** A session directory, as given and with its symlinks resolved. */
export interface SessionDirectory {
  /** As given, made absolute. */
  readonly given: string;
  /** With every symlink resolved. */
  readonly real: string;
}

/** The session directory `directory`; a `UsageError` saying what could not be done if it is gone. */
export async function resolveSessionDirectory(
  directory: string,
  consequence: string,
): Promise<SessionDirectory> {
  const given = resolve(directory);
  try {
    return { given, real: await realpath(given) };
  } catch (error) {
    throw new UsageError(
      `the session directory ${given} does not exist or cannot be read, so ${consequence}`,
      { cause: error },
    );
  }
}

export interface InsideOptions {
  /** Names the path in messages, e.g. `attachment "a.png"`. */
  what: string;
  /** Ends the message of a path outside: what is allowed and what to do instead. */
  outsideHint: string;
}

/**
 * The real (symlink-free) path of `given` (absolute, or relative to the directory), once it is
 * known to lie inside `dir`; otherwise a `UsageError`.
 */
export async function realPathInside(
  dir: SessionDirectory,
  given: string,
  options: InsideOptions,
): Promise<string> {
  const path = resolve(dir.given, given);
  // Checked on the path as written too, so a path outside is refused without touching it and
  // the answer never reveals whether some file outside exists.
  if (!isWithin(path, dir.given) && !isWithin(path, dir.real)) throw outside(path, dir, options);
  const real = await realpath(path).catch((error: unknown) => {
    throw fileProblem(options.what, path, error);
  });
  if (!isWithin(real, dir.real)) throw outside(real, dir, options);
  return real;
}

function outside(path: string, dir: SessionDirectory, options: InsideOptions): UsageError {
  return new UsageError(
    `${options.what} resolves to ${path}, outside the session directory ${dir.given}; ${options.outsideHint}`,
  );
}

/** A file system error on `path` as a `UsageError` saying what is wrong with it. */
export function fileProblem(what: string, path: string, error: unknown): UsageError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const problem =
    code === "ENOENT" || code === "ENOTDIR"
      ? "does not exist"
      : code === "EACCES" || code === "EPERM"
        ? "cannot be read (permission denied); check its permissions"
        : code === "EISDIR"
          ? "is a directory"
          : `cannot be read (${code ?? String(error)})`;
  return new UsageError(`${what} ${problem} (${path})`, { cause: error });
}
