/**
 * A terminal's scrollback as the sidecar keeps it: the newest output, at most `bound` bytes
 * (UTF-8), for a page that reattaches (a reload, a drop) to draw what the terminal showed.
 *
 * Where it cuts: it keeps the PTY's chunks whole and drops the oldest ones, so no character is
 * split; and once it dropped anything mid-line (a dropped chunk that did not end a line), its
 * text starts after the first newline. A PTY chunk's
 * boundary is wherever a read ended, which can be inside an escape sequence (a colour, a cursor
 * move, an OSC title); replayed from there, the terminal would parse the sequence's tail as
 * text or, worse, stay inside an unterminated OSC/DCS and swallow what follows. A line start is
 * where a shell's output is nearly never mid-sequence, and the partial line before it is lost
 * anyway. Only a single chunk larger than the whole bound is sliced, on a character boundary
 * (then the newline rule applies to it too).
 */

export class ScrollbackRing {
  readonly #bound: number;
  /** The kept chunks from `#head` on (dropped ones are left behind until compacted). */
  #chunks: Array<{ text: string; bytes: number }> = [];
  #head = 0;
  #bytes = 0;
  /** The oldest kept text may start mid-line (or mid escape sequence): see text(). */
  #cutMidLine = false;

  constructor(bound: number) {
    if (!Number.isInteger(bound) || bound < 1) throw new RangeError("bound: a positive integer");
    this.#bound = bound;
  }

  /** The bytes (UTF-8) kept, at most the bound. */
  get bytes(): number {
    return this.#bytes;
  }

  push(text: string): void {
    if (text === "") return;
    let bytes = Buffer.byteLength(text, "utf8");
    const sliced = bytes > this.#bound;
    if (sliced) {
      text = newestBytes(text, this.#bound);
      bytes = Buffer.byteLength(text, "utf8");
    }
    this.#chunks.push({ text, bytes });
    this.#bytes += bytes;
    while (this.#bytes > this.#bound) {
      const oldest = this.#chunks[this.#head];
      if (oldest === undefined) break;
      this.#bytes -= oldest.bytes;
      this.#head += 1;
      this.#cutMidLine = !oldest.text.endsWith("\n");
    }
    if (sliced) this.#cutMidLine = true; // it alone is kept now, from wherever its slice began
    // Compacted now and then, so dropping the oldest chunk stays O(1) on average.
    if (this.#head > 1024 && this.#head * 2 > this.#chunks.length) {
      this.#chunks = this.#chunks.slice(this.#head);
      this.#head = 0;
    }
  }

  /**
   * The kept output in order, from a line start once older output was dropped mid-line (from
   * the oldest kept chunk's start when it holds no newline at all: better than nothing).
   */
  text(): string {
    let text = "";
    for (let i = this.#head; i < this.#chunks.length; i += 1) text += this.#chunks[i]?.text;
    if (!this.#cutMidLine) return text;
    const newline = text.indexOf("\n");
    return newline === -1 ? text : text.slice(newline + 1);
  }
}

/** The longest tail of `text` of at most `bound` UTF-8 bytes, starting on a character. */
function newestBytes(text: string, bound: number): string {
  const encoded = Buffer.from(text, "utf8");
  let start = encoded.length - bound;
  // A UTF-8 continuation byte (10xxxxxx) is inside a character: start at the next one.
  while (start < encoded.length && ((encoded[start] ?? 0) & 0xc0) === 0x80) start += 1;
  return encoded.subarray(start).toString("utf8");
}
