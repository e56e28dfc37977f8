/** The CLI's tables: a header and rows in aligned columns, the widest column last. */
import { terminalLine } from "./terminal-text.js";

/** `rows` (the header first) as lines, each column padded to its widest cell but the last. */
export function alignedColumns(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]?.map((_, column) =>
    Math.max(...rows.map((line) => line[column]?.length ?? 0)),
  );
  return rows.map((line) =>
    line
      .map((cell, column) =>
        column === line.length - 1 ? cell : cell.padEnd(widths?.[column] ?? 0),
      )
      .join("  "),
  );
}

/** A title as a cell: one line, safe to print, at most 40 characters, `-` for none. */
export function titleCell(title: string | undefined): string {
  const flat =
    terminalLine(title ?? "-")
      .replace(/\s+/g, " ")
      .trim() || "-";
  return flat.length > 40 ? `${flat.slice(0, 39)}…` : flat;
}
