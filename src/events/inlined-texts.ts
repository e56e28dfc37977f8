/**
 * The blocks a prompt carries its attached text files in, and reading the typed text back out of
 * the prompt OpenCode echoes. The backends write them (model-attachments.ts); the `/api`
 * normaliser reads them back, so the format sits here, below both.
 */

/** One text file put into a prompt. */
export interface InlinedText {
  name: string;
  mime: string;
  text: string;
}

const BLOCK_START = "\n\n<attached-file ";
const BLOCK_HEADER =
  /^\n\n<attached-file name=("(?:[^"\\]|\\.)*") type="([^"]*)" length="(\d+)">\n/;
const BLOCK_END = "\n</attached-file>";

/**
 * `text` with each file after it, in a block that says its name and type and is read back
 * exactly (its length is in its header, so no content can end it early).
 */
export function withInlinedTexts(text: string, texts: readonly InlinedText[]): string {
  return text + texts.map(inlinedBlock).join("");
}

/** One file's block (a prompt part of its own on the surfaces that take several). */
export function inlinedBlock(file: InlinedText): string {
  const type = file.mime.replaceAll('"', "");
  return `${BLOCK_START}name=${JSON.stringify(file.name)} type="${type}" length="${file.text.length}">\n${file.text}${BLOCK_END}`;
}

/**
 * The text as the user wrote it: `withInlinedTexts`' blocks taken off its end (the prompt
 * OpenCode echoes holds them). Text that only looks like a block stays.
 */
export function withoutInlinedTexts(text: string): string {
  for (let at = text.indexOf(BLOCK_START); at >= 0; at = text.indexOf(BLOCK_START, at + 1)) {
    if (blocksRunToEnd(text, at)) return text.slice(0, at);
  }
  return text;
}

function blocksRunToEnd(text: string, from: number): boolean {
  let at = from;
  while (at < text.length) {
    const header = BLOCK_HEADER.exec(text.slice(at, at + 1024));
    if (header === null) return false;
    const start = at + header[0].length;
    const end = start + Number(header[3]);
    if (text.slice(end, end + BLOCK_END.length) !== BLOCK_END) return false;
    at = end + BLOCK_END.length;
  }
  return true;
}
