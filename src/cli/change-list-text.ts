/**
 * How `ocb changes` prints what a session (or a turn) changed: a line per file, `status +added
 * -deleted path`, and under it the file's unified diff (none with `stat`). Paths and diffs are
 * the model's doing: they are printed through `terminalText`, so they cannot drive the
 * terminal. A pure function, tested without a sidecar.
 */
import type { SessionChangesView } from "../client/index.js";
import { paint, type Style } from "./ansi.js";
import { terminalLine, terminalText } from "./terminal-text.js";

type ChangedFile = SessionChangesView["files"][number];

const STATUS_STYLE: Record<ChangedFile["status"], Style> = {
  added: "green",
  modified: "yellow",
  deleted: "red",
};

/** As wide as the widest status, so the counts line up. */
const STATUS_WIDTH = Math.max(...Object.keys(STATUS_STYLE).map((status) => status.length));

export interface ChangeListOptions {
  /** The list alone, no diffs. */
  stat: boolean;
  color: boolean;
}

/** The whole listing, ending in a newline. */
export function changeListText(changes: SessionChangesView, options: ChangeListOptions): string {
  if (changes.files.length === 0) return "no changes\n";
  const blocks = changes.files.map((file) => {
    const line = fileLine(file, options.color);
    return options.stat ? line : [line, ...diffLines(file, options.color)].join("\n");
  });
  const more = changes.moreFiles === undefined ? [] : [`… and ${changes.moreFiles} more files`];
  return `${[...blocks, ...more].join(options.stat ? "\n" : "\n\n")}\n`;
}

/** `modified +2 -1 src/a.ts`. */
export function fileLine(file: ChangedFile, color: boolean): string {
  const status = paint(file.status.padEnd(STATUS_WIDTH), STATUS_STYLE[file.status], color);
  const counts = `${paint(`+${file.additions}`, "green", color)} ${paint(`-${file.deletions}`, "red", color)}`;
  return `${status} ${counts} ${terminalLine(file.path)}`;
}

function diffLines(file: ChangedFile, color: boolean): string[] {
  if (file.patch === undefined) {
    const why = file.patchTruncated ? "past the sidecar's bound on diffs" : "a binary file";
    return [paint(`(no diff: ${why})`, "dim", color)];
  }
  const lines = terminalText(file.patch).replace(/\n$/, "").split("\n");
  const styled = lines.map((line) => {
    const style = diffStyle(line);
    return style === undefined ? line : paint(line, style, color);
  });
  return file.patchTruncated ? [...styled, paint("(diff cut short)", "dim", color)] : styled;
}

/** Headers bold, hunks cyan, added green, deleted red; context as it is. */
function diffStyle(line: string): Style | undefined {
  if (/^(diff |index |--- |\+\+\+ )/.test(line)) return "bold";
  if (line.startsWith("@@")) return "cyan";
  if (line.startsWith("+")) return "green";
  if (line.startsWith("-")) return "red";
  return undefined;
}
