/**
 * Previews of the images this tab sent, by the input's text and the file's name: the
 * transcript keeps only a byte-free reference of an attachment, so a user message shows its
 * image from here at once (elsewhere, after a reload or in another tab, from the sidecar:
 * `kept-image.ts`). Recorded before the send, so the message finds it however early its
 * admission arrives.
 */
const previews = new Map<string, string>();

const keyOf = (text: string, name: string) => `${text}\u0000${name}`;

export function rememberSentImage(text: string, name: string, url: string): void {
  previews.set(keyOf(text, name), url);
}

export function sentImageOf(text: string, name: string): string | undefined {
  return previews.get(keyOf(text, name));
}
