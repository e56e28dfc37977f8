/**
 * A session's files, for a file picker, a file view and `@`-mentions: listed, read and found
 * from the local file system under one rule (`inside-directory.ts`, shared with attachments).
 * Read here, not through OpenCode, so the rule is the bridge's own on every backend.
 */
import { throwIfAborted } from "../../util/abort.js";
import { type FindFilesOptions, type FoundFiles, findFiles } from "./find-files.js";
import { type FileListing, listFiles } from "./list-files.js";
import { type FileContent, readSessionFile } from "./read-file.js";

export type { FindFilesOptions, FoundFile, FoundFiles } from "./find-files.js";
export type { FileEntry, FileEntryType, FileListing } from "./list-files.js";
export type { FileContent } from "./read-file.js";

export class SessionFiles {
  readonly #directory: string;

  constructor(directory: string) {
    this.#directory = directory;
  }

  /** The entries of the directory `path` (relative to the session directory; default itself). */
  async list(
    path = "",
    options: { maxEntries?: number; signal?: AbortSignal } = {},
  ): Promise<FileListing> {
    throwIfAborted(options.signal, "listing files");
    return await listFiles(this.#directory, path, options);
  }

  /** The file `path`: its text (the start of it past `maxBytes`), or that it is binary. */
  async read(
    path: string,
    options: { maxBytes?: number; signal?: AbortSignal } = {},
  ): Promise<FileContent> {
    throwIfAborted(options.signal, "reading a file");
    return await readSessionFile(this.#directory, path, options);
  }

  /** Files and directories whose path matches `query` fuzzily, best first. */
  async find(query: string, options: FindFilesOptions = {}): Promise<FoundFiles> {
    return await findFiles(this.#directory, query, options);
  }
}
