/**
 * What the composer's pickers read in the text: the `/name` of a command being typed at the
 * message's start, or the `@letters` of a file being typed at the caret; and what a message
 * that starts with a known command's name runs. Pure, so that the pickers' rules are tested
 * apart from the DOM.
 */

/** The token under the caret that opens a picker: where it starts and ends, and its letters. */
export interface PickerToken {
  kind: "command" | "file";
  /** The letters after `/` or `@`, up to the caret. */
  query: string;
  /** Index of the `/` or `@`. */
  start: number;
  /** Index just past the token (the caret). */
  end: number;
}

/**
 * The token the caret is at the end of, if it opens a picker: `/letters` as the whole text
 * before the caret (a command is the message's first word), or `@letters` after a space or at
 * the start (not an e-mail address's `@`), with at least one letter (`@` alone lists nothing).
 * A negative caret (the box is not focused) opens none.
 */
export function tokenAtCaret(text: string, caret: number): PickerToken | undefined {
  if (caret < 0) return undefined; // the box has not the focus
  const before = text.slice(0, caret);
  const command = /^\/([^\s/]*)$/.exec(before);
  if (command !== null) {
    return { kind: "command", query: command[1] ?? "", start: 0, end: caret };
  }
  const file = /(^|\s)@([^\s@]+)$/.exec(before);
  if (file !== null) {
    const query = file[2] ?? "";
    return { kind: "file", query, start: caret - query.length - 1, end: caret };
  }
  return undefined;
}

/** `text` with `token` replaced by `replacement` and a space, and where the caret goes. */
export function replaceToken(
  text: string,
  token: PickerToken,
  replacement: string,
): { text: string; caret: number } {
  const after = text.slice(token.end);
  const spaced = after.startsWith(" ") ? replacement : `${replacement} `;
  const head = text.slice(0, token.start) + spaced;
  return { text: head + after, caret: head.length + (after.startsWith(" ") ? 1 : 0) };
}

/** A message that runs a command: its name and what follows it (the template's arguments). */
export interface CommandCall {
  name: string;
  arguments: string;
}

/**
 * The command `message` runs: `/name args` where `name` is one of `known`. Anything else (an
 * unknown `/word`, a path like `/etc/hosts …`) is undefined: the message is sent as text.
 */
export function commandCall(message: string, known: ReadonlySet<string>): CommandCall | undefined {
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(message.trim());
  if (match === null) return undefined;
  const name = match[1] ?? "";
  if (!known.has(name)) return undefined;
  return { name, arguments: (match[2] ?? "").trim() };
}

/** Whether `message` starts like a command (`/word`), so that the list is worth fetching. */
export function looksLikeCommand(message: string): boolean {
  return /^\/[^\s/]+(\s|$)/.test(message.trim());
}
