/** Whether bytes are text, and the text: what a transcript, a file view or a MIME guess needs. */

/**
 * The UTF-8 text of `bytes`, or undefined when they are not text (a NUL byte, or not valid
 * UTF-8). `partial`: the bytes are a file's first part, so a character cut at the end is
 * dropped instead of making the whole binary.
 */
export function textOf(bytes: Uint8Array, options: { partial?: boolean } = {}): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes, {
      stream: options.partial === true,
    });
  } catch {
    return undefined;
  }
}
