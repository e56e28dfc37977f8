/**
 * The diff a file-editing tool call makes, from its input: OpenCode's `edit` (old and new
 * strings), `write` (a whole file) and `patch`/`apply_patch` (a patch text as given).
 */
import { createTwoFilesPatch } from "diff";

export function toolDiff(tool: string, input: Record<string, unknown>): string | undefined {
  const file = stringField(input, "filePath") ?? stringField(input, "path") ?? "file";
  switch (tool) {
    case "edit": {
      const before = stringField(input, "oldString");
      const after = stringField(input, "newString");
      if (before === undefined || after === undefined) return undefined;
      return createTwoFilesPatch(file, file, before, after, undefined, undefined, { context: 3 });
    }
    case "write": {
      const content = stringField(input, "content");
      if (content === undefined) return undefined;
      return createTwoFilesPatch("/dev/null", file, "", content, undefined, undefined, {
        context: 0,
      });
    }
    case "patch":
    case "apply_patch":
      return stringField(input, "patchText") ?? stringField(input, "patch");
    default:
      return undefined;
  }
}

function stringField(input: Record<string, unknown>, key: string): string | undefined {
  const value = input[key];
  return typeof value === "string" ? value : undefined;
}
