/**
 * highlight.js's HTML for a text cut into one HTML string per line of the text, each line's
 * spans closed at its end and opened again at the next line's start (a block comment or a
 * template string crosses lines), so each line can be drawn on its own — in a diff's rows, or
 * beside a gutter of line numbers.
 *
 * The whole text is highlighted at once rather than line by line because a token that spans
 * lines (a block comment, a multi-line string) only reads right with what comes before it.
 *
 * The text is untrusted (a repository's files, an agent's diffs), and the HTML goes into the
 * page as HTML: so this is also the check that it is only what highlight.js makes — escaped
 * text and `<span class="…">` of plain class names — and anything else (which highlight.js
 * never makes) gives undefined, for the caller to show the text as text. A whitelist this
 * narrow is stricter than a sanitiser, and costs a regular expression rather than a DOM parse.
 */
const OPEN_SPAN = /^<span class="[\w -]+">$/;
const CLOSE_SPAN = "</span>";

export function highlightedHtmlLines(html: string): string[] | undefined {
  const lines: string[] = [];
  const open: string[] = [];
  let line = "";
  // Odd entries are the tags, even ones the text between them.
  const parts = html.split(/(<[^>]*>)/);
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as string;
    if (index % 2 === 1) {
      if (part === CLOSE_SPAN) {
        if (open.pop() === undefined) return undefined;
      } else if (OPEN_SPAN.test(part)) {
        open.push(part);
      } else {
        return undefined;
      }
      line += part;
      continue;
    }
    // Escaped text has no `<` or `>` of its own: one here is not highlight.js's output.
    if (/[<>]/.test(part)) return undefined;
    const pieces = part.split("\n");
    line += pieces[0];
    for (const piece of pieces.slice(1)) {
      lines.push(line + CLOSE_SPAN.repeat(open.length));
      line = open.join("") + piece;
    }
  }
  if (open.length > 0) return undefined;
  lines.push(line);
  return lines;
}
