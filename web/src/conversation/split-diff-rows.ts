/**
 * A unified diff's lines as the rows of a side-by-side view: a context line on both sides, a
 * run of removed lines beside the run of added lines that follows it (paired in order, the
 * longer run's rest beside nothing), hunk and file headers across both.
 */
export type LineKind = "file" | "hunk" | "add" | "del" | "context";

export function kindOf(line: string): LineKind {
  if (line.startsWith("+++") || line.startsWith("---")) return "file";
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  return "context";
}

/** A row of lines: the lines as given, strings or what a caller keeps with each (its HTML). */
export type SplitRow<Line = string> =
  | { kind: "header"; line: Line; lineKind: "file" | "hunk" }
  | { kind: "pair"; before: Line | undefined; after: Line | undefined };

export function splitRows(lines: readonly string[]): SplitRow[];
export function splitRows<Line>(
  lines: readonly Line[],
  textOf: (line: Line) => string,
): SplitRow<Line>[];
export function splitRows<Line>(
  lines: readonly Line[],
  textOf: (line: Line) => string = String,
): SplitRow<Line>[] {
  const rows: SplitRow<Line>[] = [];
  let removed: Line[] = [];
  let added: Line[] = [];
  const flush = () => {
    for (let index = 0; index < Math.max(removed.length, added.length); index++) {
      rows.push({ kind: "pair", before: removed[index], after: added[index] });
    }
    removed = [];
    added = [];
  };
  for (const line of lines) {
    const kind = kindOf(textOf(line));
    if (kind === "del") {
      // A removal after additions starts a new run: the additions are not its replacement.
      if (added.length > 0) flush();
      removed.push(line);
    } else if (kind === "add") {
      added.push(line);
    } else {
      flush();
      rows.push(
        kind === "context"
          ? { kind: "pair", before: line, after: line }
          : { kind: "header", line, lineKind: kind },
      );
    }
  }
  flush();
  return rows;
}
