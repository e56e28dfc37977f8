/**
 * A growing Markdown text cut into blocks that stay put: at blank lines outside fenced code.
 * A block, once a blank line follows it, never changes however the text grows, so its HTML
 * can be kept. (Cutting can split a loose list or a reference link from its definition; the
 * part's end redraws the whole text as one.)
 */
/** `text` cut at blank lines that are not inside a fenced code block. */
export function markdownBlocks(text: string): string[] {
  const blocks: string[] = [];
  let start = 0;
  let fence: string | undefined;
  let lineStart = 0;
  while (lineStart <= text.length) {
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    } else if (fence === undefined && line.trim() === "" && lineStart > start) {
      blocks.push(text.slice(start, lineStart));
      start = lineEnd + 1;
    }
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  if (start < text.length) blocks.push(text.slice(start));
  return blocks;
}
