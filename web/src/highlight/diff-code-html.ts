/**
 * A unified diff's lines with their code highlighted: for each line, the HTML of the code after
 * its sign (`+`, `-` or a space), or undefined for a line drawn as text (file and hunk headers,
 * `\ No newline…`, a language highlight.js does not know, a diff past the bounds).
 *
 * Each file's code is in that file's language: the `+++`/`---` lines (and `diff --git`, and
 * apply_patch's `*** Update File:`) name it, `path` is for a diff without them (the review
 * panel's, cut to its hunks). Within a hunk the before side (context and removed lines) and the
 * after side (context and added lines) are each highlighted as one text, as the file reads
 * before and after, so a comment or string across lines is coloured right on both.
 */
import { kindOf } from "../conversation/split-diff-rows.js";
import { highlightedLines, withinHighlightBounds } from "./highlighted-lines.js";
import { languageOfPath } from "./language-of-path.js";

export function diffCodeHtml(
  lines: readonly string[],
  path?: string | undefined,
): (string | undefined)[] {
  const html: (string | undefined)[] = lines.map(() => undefined);
  if (lines.length === 0 || !withinHighlightBounds(lines.join("\n"))) return html;
  let language = languageOfPath(path);
  let removedPath: string | undefined;
  let run: number[] = [];
  const flush = () => {
    if (language !== undefined) highlightRun(lines, run, language, html);
    run = [];
  };
  for (const [index, line] of lines.entries()) {
    if (isCodeLine(line)) {
      run.push(index);
      continue;
    }
    flush();
    if (line.startsWith("--- ")) {
      removedPath = pathOf(line.slice(4));
    } else if (line.startsWith("+++ ")) {
      const added = pathOf(line.slice(4));
      language = languageOfPath(added === "/dev/null" ? removedPath : added);
    } else {
      const named = namedPath(line);
      if (named !== undefined) language = languageOfPath(named);
    }
  }
  flush();
  return html;
}

/** A line of code in a hunk; an empty line is a context line whose space was trimmed. */
function isCodeLine(line: string): boolean {
  const kind = kindOf(line);
  if (kind !== "add" && kind !== "del" && kind !== "context") return false;
  return line === "" || line.startsWith(" ") || kind !== "context";
}

/** A header's path without the tab and date some tools add after it. */
function pathOf(named: string): string {
  return named.split("\t")[0]?.trim() ?? "";
}

/** The (new) path a `diff --git` or apply_patch header line names, if it is one. */
function namedPath(line: string): string | undefined {
  const git = /^diff --git \S+ (.+)$/.exec(line);
  if (git !== null) return git[1];
  const patch = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/.exec(line);
  return patch?.[1]?.trim();
}

/** Highlights one run of code lines, the before side and the after side each as one text. */
function highlightRun(
  lines: readonly string[],
  run: readonly number[],
  language: string,
  html: (string | undefined)[],
): void {
  const before: string[] = [];
  const after: string[] = [];
  for (const index of run) {
    const line = lines[index] as string;
    const kind = kindOf(line);
    if (kind !== "add") before.push(line.slice(1));
    if (kind !== "del") after.push(line.slice(1));
  }
  const beforeHtml = before.length > 0 ? highlightedLines(before.join("\n"), language) : [];
  const afterHtml = after.length > 0 ? highlightedLines(after.join("\n"), language) : [];
  let inBefore = 0;
  let inAfter = 0;
  for (const index of run) {
    const kind = kindOf(lines[index] as string);
    // A context line is on both sides; its after side is the one drawn.
    if (kind === "del") html[index] = beforeHtml?.[inBefore++];
    else html[index] = afterHtml?.[inAfter++];
    if (kind === "context") inBefore++;
  }
}
