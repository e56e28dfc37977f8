/**
 * A text's lines as highlighted HTML, one string a line, or undefined to show it as plain text:
 * for a language highlight.js does not know, for output that is not only highlight.js's spans
 * (highlighted-html-lines.ts), and past the bounds below. Memoised by language and text, so a
 * diff or a file is highlighted once however often it is drawn or opened again.
 */
import { highlighted } from "../markdown/highlight.js";
import { highlightedHtmlLines } from "./highlighted-html-lines.js";

/**
 * Past these a text is shown plain. highlight.js takes tens of milliseconds for 200 KB and
 * every token is a DOM node, so a bigger text would hold the page for a visible moment (and the
 * files view takes up to 1 MiB); 5,000 lines is far more than anyone reads highlighted, and a
 * line of over 2,000 characters is minified or generated code, where colours help nobody and
 * highlight.js's regular expressions are at their slowest.
 */
export const HIGHLIGHT_MAX_CHARS = 200_000;
export const HIGHLIGHT_MAX_LINES = 5_000;
export const HIGHLIGHT_MAX_LINE_CHARS = 2_000;

/** Whether `text` is within the bounds above (so worth highlighting). */
export function withinHighlightBounds(text: string): boolean {
  if (text.length > HIGHLIGHT_MAX_CHARS) return false;
  let lines = 1;
  let start = 0;
  for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
    if (end - start > HIGHLIGHT_MAX_LINE_CHARS || ++lines > HIGHLIGHT_MAX_LINES) return false;
    start = end + 1;
  }
  return text.length - start <= HIGHLIGHT_MAX_LINE_CHARS;
}

/** Memoised lines by language and text, bounded by the characters held (oldest dropped first). */
const cache = new Map<string, string[] | undefined>();
const CACHE_CHARS = 4_000_000;
let cachedChars = 0;

/** `text`'s lines (split at `\n`) as highlighted HTML in `language`, or undefined. */
export function highlightedLines(text: string, language: string | undefined): string[] | undefined {
  if (language === undefined || !withinHighlightBounds(text)) return undefined;
  const key = `${language}\n${text}`;
  if (cache.has(key)) return cache.get(key);
  const html = highlighted(text, language);
  const lines = html === undefined ? undefined : highlightedHtmlLines(html);
  cache.set(key, lines);
  // The HTML is a few times the text: count it so, rather than summing every line.
  cachedChars += key.length * 4;
  for (const [oldest] of cache) {
    if (cachedChars <= CACHE_CHARS || cache.size <= 1) break;
    cache.delete(oldest);
    cachedChars -= oldest.length * 4;
  }
  return lines;
}
