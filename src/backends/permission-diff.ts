/**
 * A ready-to-render diff for a permission ask whose server sends none (the `/api` surface
 * asks "edit these resources" with no content): computed from the tool call's input and the
 * file as it is on disk now. Only for the file tools whose effect follows from their input.
 *
 * The file is read only when it lies inside the session directory, both resolved through
 * symlinks: a call naming `~/.ssh/id_rsa` (or a link pointing there) must not copy that file
 * into the transcript. Such an ask carries no diff and says why (`diffOmitted`).
 *
 * The model chooses the input, so the work is bounded: neither text may pass `DIFF_MAX_BYTES`,
 * and the diff is computed in slices between which the event loop runs (a whole-file rewrite of
 * 10,000 lines blocked every session and client for 15-36 s), given up after
 * `DIFF_TIMEOUT_MS`. The ask still comes, without its diff, saying why.
 */
import { realpathSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { createTwoFilesPatch } from "diff";
import type { CanonicalEvent } from "../events/canonical.js";
import { isWithin } from "../util/path-within.js";

/** Why an ask carries no diff although its tool edits a file. */
export type DiffOmitted = "outside-directory" | "too-large" | "too-slow";

/** The largest text (the file now, or after the call) a diff is computed for. */
export const DIFF_MAX_BYTES = 1024 * 1024;

/**
 * How long a diff may take (in slices, the event loop running between them) before it is given
 * up: the ask is to be ready, or told it has no diff, within 500 ms, and reading the file and
 * the last slice take their share of that.
 */
export const DIFF_TIMEOUT_MS = 400;

/** What an ask about a file edit carries: the diff, or why there is none. */
export interface AskDiff {
  files: string[];
  diff?: string;
  diffOmitted?: DiffOmitted;
}

/** The diff `tool` would make with `input` in `directory`, or undefined when it cannot be told. */
export async function diffOfToolCall(
  directory: string,
  tool: string,
  input: Record<string, unknown>,
): Promise<AskDiff | undefined> {
  const target = stringField(input, "path") ?? stringField(input, "filePath");
  if (target === undefined || (tool !== "write" && tool !== "edit")) return undefined;
  const file = absolutePath(directory, target);
  if (!liesInside(directory, file)) {
    return { files: [file], diffOmitted: "outside-directory" };
  }
  const before = await readCurrent(file);
  if (before === undefined) return undefined;
  if (before === TOO_LARGE) return { files: [file], diffOmitted: "too-large" };
  const after = contentAfter(tool, input, before);
  if (after === undefined) return undefined;
  if (Buffer.byteLength(after) > DIFF_MAX_BYTES) return { files: [file], diffOmitted: "too-large" };
  const diff = await patchWithin(file, before, after, DIFF_TIMEOUT_MS);
  return diff === undefined ? { files: [file], diffOmitted: "too-slow" } : { diff, files: [file] };
}

/** The unified diff, computed in slices (async mode); undefined past `timeoutMs`. */
function patchWithin(
  file: string,
  before: string,
  after: string,
  timeoutMs: number,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    createTwoFilesPatch(file, file, before, after, undefined, undefined, {
      timeout: timeoutMs,
      callback: resolve,
    });
  });
}

/**
 * A permission ask as it goes to the session: its diff, whoever computed it (legacy asks carry
 * OpenCode's own), kept only when every file it names (the ask's `files`, and the `---`/`+++`
 * lines of the diff itself) lies inside the directory, resolved through symlinks. An edit of a
 * link inside the project that points outside it put the outside file's contents into the ask,
 * the store and the chat. Synchronous (a few `realpath` calls), so that the ask keeps its place
 * among the events. Any other event is returned as it is.
 */
export function withCheckedDiff(directory: string, event: CanonicalEvent): CanonicalEvent {
  if (event.type !== "permission.asked" || event.data.diff === undefined) return event;
  const named = [...(event.data.files ?? []), ...filesOfPatch(event.data.diff)];
  if (named.every((file) => liesInside(directory, absolutePath(directory, file)))) return event;
  const { diff: _dropped, ...data } = event.data;
  return { ...event, data: { ...data, diffOmitted: "outside-directory" } };
}

/** The paths a unified diff's `---` and `+++` lines name (a tab ends a path, then its date). */
function filesOfPatch(patch: string): string[] {
  const files: string[] = [];
  for (const match of patch.matchAll(/^(?:---|\+\+\+) ([^\t\n]+)/gm)) {
    const path = match[1]?.trim();
    if (path !== undefined && path !== "/dev/null") files.push(path.replace(/^[ab]\//, ""));
  }
  return files;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** The real path of `file`; for a file not made yet, its nearest existing ancestor's, joined with the rest. */
function realpathOfMaybeMissing(file: string): string {
  try {
    return realpathSync(file);
  } catch (error) {
    const parent = dirname(file);
    if ((error as NodeJS.ErrnoException).code !== "ENOENT" || parent === file) return file;
    return join(realpathOfMaybeMissing(parent), basename(file));
  }
}

/** Whether the real path `real` lies in the real directory `root` (not the directory itself). */
function isInside(root: string, real: string): boolean {
  return real !== root && isWithin(real, root);
}

/** `target` made absolute: relative to the directory, `~/` to the user's home. */
function absolutePath(directory: string, target: string): string {
  if (target === "~" || target.startsWith("~/")) return join(homedir(), target.slice(1));
  return isAbsolute(target) ? target : resolve(directory, target);
}

/** Whether `file`, resolved through symlinks (its nearest existing ancestor if it is new), is in `directory`. */
function liesInside(directory: string, file: string): boolean {
  return isInside(realOrSelf(directory), realpathOfMaybeMissing(file));
}

function contentAfter(
  tool: string,
  input: Record<string, unknown>,
  before: string,
): string | undefined {
  if (tool === "write") return stringField(input, "content");
  const oldString = stringField(input, "oldString");
  const newString = stringField(input, "newString");
  if (oldString === undefined || newString === undefined) return undefined;
  if (input.replaceAll === true) return before.split(oldString).join(newString);
  const at = before.indexOf(oldString);
  // An edit whose old text is not there fails in the tool; there is nothing to show.
  if (at === -1) return undefined;
  return before.slice(0, at) + newString + before.slice(at + oldString.length);
}

const TOO_LARGE = Symbol("too large");

/**
 * The file's text now: "" when it does not exist yet, undefined when it cannot be read,
 * `TOO_LARGE` (not read) past `DIFF_MAX_BYTES`.
 */
async function readCurrent(file: string): Promise<string | typeof TOO_LARGE | undefined> {
  try {
    if ((await stat(file)).size > DIFF_MAX_BYTES) return TOO_LARGE;
    return await readFile(file, "utf8");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "" : undefined;
  }
}

function stringField(input: Record<string, unknown>, key: string): string | undefined {
  const value = input[key];
  return typeof value === "string" ? value : undefined;
}
