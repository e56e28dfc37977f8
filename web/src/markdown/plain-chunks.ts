/**
 * A long growing text cut into chunks that stay put once full, each drawn as its own block: the
 * browser then lays out only the last, growing chunk on each frame, not a paragraph of the
 * whole text (a layout of 80 KB of text in one paragraph takes longer than a frame). A chunk
 * ends at the last space or line break in its second half, so that a break between chunks falls
 * between words; a text without either is cut at the bound.
 */

/** Characters of a chunk at most. */
export const PLAIN_CHUNK_CHARS = 4000;

/** `text` in chunks: every chunk but the last keeps its bounds however the text grows. */
export function plainChunks(text: string, chunkChars = PLAIN_CHUNK_CHARS): string[] {
  const chunks: string[] = [];
  let at = 0;
  while (text.length - at > chunkChars) {
    const end = breakBefore(text, at + Math.floor(chunkChars / 2), at + chunkChars);
    chunks.push(text.slice(at, end));
    at = end;
  }
  chunks.push(text.slice(at));
  return chunks;
}

/** Just past the last whitespace in `[from, to)`, else `to`. */
function breakBefore(text: string, from: number, to: number): number {
  for (let index = to - 1; index >= from; index--) {
    const char = text[index];
    if (char === " " || char === "\n" || char === "\t") return index + 1;
  }
  return to;
}
