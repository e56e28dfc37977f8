/** One of a session's files, read for a file view (`Session.readFile`). */
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { UsageError } from "../../errors.js";
import { fileProblem, realPathInside, resolveSessionDirectory } from "./inside-directory.js";
import { relativePath } from "./list-files.js";
import { textOf } from "./text-bytes.js";

export interface FileContent {
  /** Relative to the session directory, `/`-separated, symlinks resolved. */
  path: string;
  /** The file's size in bytes. */
  size: number;
  /** True when the file is not UTF-8 text (a NUL byte, or invalid UTF-8): `content` is absent. */
  binary: boolean;
  /** The text, or its first `maxBytes` when `truncated`; absent for a binary file. */
  content?: string | undefined;
  /** True when the file is larger than `maxBytes` and only its start is in `content`. */
  truncated: boolean;
}

export const DEFAULT_MAX_READ_BYTES = 1024 * 1024;

/**
 * The file at `path` (relative to `directory`). A regular file only (not a directory, a FIFO
 * that would block, a device); at most `maxBytes` of it are read, so a huge file costs no more
 * than a small one.
 */
export async function readSessionFile(
  directory: string,
  path: string,
  options: { maxBytes?: number } = {},
): Promise<FileContent> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_READ_BYTES;
  const dir = await resolveSessionDirectory(directory, "its files cannot be read");
  const what = `file ${JSON.stringify(path)}`;
  const real = await realPathInside(dir, path, {
    what,
    outsideHint: "only files inside the session directory can be read",
  });
  // Non-blocking, so a FIFO is refused below instead of waiting for a writer forever.
  const handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK).catch(
    (error: unknown) => {
      throw fileProblem(what, real, error);
    },
  );
  try {
    // The opened file's own stat: the file checked is the file read.
    const info = await handle.stat();
    if (info.isDirectory()) {
      throw new UsageError(`${what} is a directory; list it with the files route`);
    }
    if (!info.isFile()) throw new UsageError(`${what} is not a regular file`);
    const buffer = Buffer.alloc(Math.min(info.size, maxBytes));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const bytes = buffer.subarray(0, bytesRead);
    const truncated = info.size > bytesRead;
    const content = textOf(bytes, { partial: truncated });
    return {
      path: relativePath(dir.real, real),
      size: info.size,
      binary: content === undefined,
      ...(content === undefined ? {} : { content }),
      truncated,
    };
  } finally {
    await handle.close();
  }
}
