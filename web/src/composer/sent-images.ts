/**
 * Previews of the images this tab sent, by input id and file name: the transcript keeps only
 * a byte-free reference of an attachment, so a user message shows its image from here (and a
 * chip with the name where the tab has none, after a reload or in another tab).
 */
const previews = new Map<string, string>();

export function rememberSentImage(inputId: string, name: string, url: string): void {
  previews.set(`${inputId}\u0000${name}`, url);
}

export function sentImageOf(inputId: string, name: string): string | undefined {
  return previews.get(`${inputId}\u0000${name}`);
}
