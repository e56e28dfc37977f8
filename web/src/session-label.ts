/**
 * How a session is named on the page: never by its raw id. Its title (the bridge's: given at
 * creation, by a rename, or OpenCode's on an import), else a plain "Untitled session". The
 * chat titles the sessions it makes from the first words of their first message, so every
 * client of the sidecar sees the same name.
 */

/** Words and characters a title made from a message keeps at most. */
const TITLE_WORDS = 8;
const TITLE_CHARS = 60;

export const UNTITLED = "Untitled session";

/** The name to show for a session with `title`. */
export function sessionLabel(title: string | undefined): string {
  const shown = title?.trim();
  return shown === undefined || shown === "" ? UNTITLED : shown;
}

/**
 * A title from a first message: its first words on one line, cut with an ellipsis when longer;
 * undefined when it has no words (an image sent alone).
 */
export function titleFromMessage(text: string): string | undefined {
  const words = text
    .trim()
    .split(/\s+/)
    .filter((word) => word !== "");
  if (words.length === 0) return undefined;
  let title = words.slice(0, TITLE_WORDS).join(" ");
  const cut = words.length > TITLE_WORDS || title.length > TITLE_CHARS;
  if (title.length > TITLE_CHARS) {
    title = title.slice(0, TITLE_CHARS - 1);
    // At a word's end where one is near: "a long tit…" reads worse than "a long…".
    const space = title.lastIndexOf(" ");
    title = (space > TITLE_CHARS / 2 ? title.slice(0, space) : title).trimEnd();
  }
  return cut ? `${title}…` : title;
}
