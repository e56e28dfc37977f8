/**
 * The images of the inputs sent through this sidecar, kept in memory so that a page that opens
 * the session later (a reload, a second tab) shows them as the sending tab does.
 *
 * Why here: the transcript keeps a byte-free reference of each attachment
 * (`data:<mime>;name=…;bytes=…`), so that a transcript, a snapshot and every replay stay small;
 * the bytes go to OpenCode, which serves no file of a message back. Why bounded this way: only
 * images a browser draws (`SENT_IMAGE_TYPES`; never SVG, which can carry script), each at most the
 * attachment limit, all together at most `limits.sentImageBytes` (64 MiB by default), the
 * least recently kept or read dropped first. What is not kept (an older image past the bound,
 * one sent before the sidecar started, through another sidecar of a cluster, or by path) is
 * shown by its name, as before.
 */

import { SENT_IMAGE_TYPES } from "../wire/http.js";

const IMAGE_TYPES: ReadonlySet<string> = new Set(SENT_IMAGE_TYPES);

export interface SentImage {
  mime: string;
  bytes: Uint8Array;
}

export class SentImages {
  readonly #maxBytes: number;
  /** By key, least recently kept or read first (a Map keeps insertion order). */
  readonly #images = new Map<string, SentImage>();
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Keeps the `index`-th attachment of an input, if it is an image that fits the bound. */
  keep(sessionId: string, inputId: string, index: number, image: SentImage): void {
    if (!IMAGE_TYPES.has(image.mime.toLowerCase())) return;
    if (image.bytes.byteLength > this.#maxBytes) return;
    const key = keyOf(sessionId, inputId, index);
    this.#drop(key);
    this.#images.set(key, image);
    this.#bytes += image.bytes.byteLength;
    for (const [oldest] of this.#images) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#drop(oldest);
    }
  }

  /** The `index`-th attachment of an input, if it was kept (and still is). */
  get(sessionId: string, inputId: string, index: number): SentImage | undefined {
    const key = keyOf(sessionId, inputId, index);
    const image = this.#images.get(key);
    if (image === undefined) return undefined;
    // Read again: the last to be dropped.
    this.#images.delete(key);
    this.#images.set(key, image);
    return image;
  }

  /** The bytes kept now (for tests of the bound). */
  get bytes(): number {
    return this.#bytes;
  }

  #drop(key: string): void {
    const image = this.#images.get(key);
    if (image === undefined) return;
    this.#images.delete(key);
    this.#bytes -= image.bytes.byteLength;
  }
}

function keyOf(sessionId: string, inputId: string, index: number): string {
  return `${sessionId}\u0000${inputId}\u0000${index}`;
}
