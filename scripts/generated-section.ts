/**
 * A generated part of a Markdown page, kept between two comment markers: written by an npm
 * script (`docs:capabilities`, `docs:events`) and read back by a test that fails when the page
 * and the code disagree. Documentation tooling: nothing at run time reads it.
 */
import { UsageError } from "../src/errors.js";

/** The two comments a generated section sits between. */
export interface SectionMarkers {
  start: string;
  end: string;
}

/** `document` with the text between the markers replaced by `content`. */
export function replaceSection(document: string, markers: SectionMarkers, content: string): string {
  const start = document.indexOf(markers.start);
  const end = document.indexOf(markers.end);
  if (start === -1 || end < start) {
    throw new UsageError(`the document has no "${markers.start}" … "${markers.end}" markers`);
  }
  return `${document.slice(0, start + markers.start.length)}\n\n${content}\n\n${document.slice(end)}`;
}

/** The cells of the table between the markers, row by row (padding and the rule row left out). */
export function sectionTableCells(document: string, markers: SectionMarkers): string[][] {
  const start = document.indexOf(markers.start);
  const end = document.indexOf(markers.end);
  if (start === -1 || end < start) return [];
  return tableCells(document.slice(start + markers.start.length, end));
}

/** A Markdown table's cells, trimmed, without its `|---|` rule row. */
export function tableCells(markdown: string): string[][] {
  return markdown
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.startsWith("|") && !/^\|[\s\-:|]+\|$/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split("|")
        .map((cell) => cell.trim()),
    );
}

/** A Markdown table, its columns padded to their widest cell (as Biome formats it). */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, 3, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join(
    "\n",
  );
}
