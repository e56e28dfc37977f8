/**
 * A ready-to-render diff for a permission ask whose server sends none (the `/api` surface
 * asks "edit these resources" with no content): computed from the tool call's input and the
 * file as it is on disk now. Only for the file tools whose effect follows from their input.
 */
import { readFile } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { createTwoFilesPatch } from "diff";

export interface AskDiff {
  diff: string;
  files: string[];
}

/** The diff `tool` would make with `input` in `directory`, or undefined when it cannot be told. */
export async function diffOfToolCall(
  directory: string,
  tool: string,
  input: Record<string, unknown>,
): Promise<AskDiff | undefined> {
  const target = stringField(input, "path") ?? stringField(input, "filePath");
  if (target === undefined) return undefined;
  const file = isAbsolute(target) ? target : resolve(directory, target);
  const before = await readCurrent(file);
  if (before === undefined) return undefined;
  const after = contentAfter(tool, input, before);
  if (after === undefined) return undefined;
  return { diff: createTwoFilesPatch(file, file, before, after), files: [file] };
}

function contentAfter(
  tool: string,
  input: Record<string, unknown>,
  before: string,
): string | undefined {
  if (tool === "write") return stringField(input, "content");
  if (tool !== "edit") return undefined;
  const oldString = stringField(input, "oldString");
  const newString = stringField(input, "newString");
  if (oldString === undefined || newString === undefined) return undefined;
  if (input.replaceAll === true) return before.split(oldString).join(newString);
  const at = before.indexOf(oldString);
  // An edit whose old text is not there fails in the tool; there is nothing to show.
  if (at === -1) return undefined;
  return before.slice(0, at) + newString + before.slice(at + oldString.length);
}

/** The file's text now: "" when it does not exist yet, undefined when it cannot be read. */
async function readCurrent(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "" : undefined;
  }
}

function stringField(input: Record<string, unknown>, key: string): string | undefined {
  const value = input[key];
  return typeof value === "string" ? value : undefined;
}
