/**
 * The chat's keyboard shortcuts: single keys, taken only outside text fields (where they are
 * text, and where the composer's `/` and `@` pickers live) and never with Ctrl, Alt or Meta
 * (the browser's and the system's). One table: the handler and the `?` list both read it.
 */
export type ShortcutAction = "shortcuts" | "new-session" | "composer" | "sessions" | "review";

export const SHORTCUTS: readonly { key: string; action: ShortcutAction; does: string }[] = [
  { key: "?", action: "shortcuts", does: "Show this list of shortcuts" },
  { key: "n", action: "new-session", does: "Start a new session" },
  { key: "c", action: "composer", does: "Write a message (focus the composer)" },
  {
    key: "s",
    action: "sessions",
    does: "Go to the sessions (on a phone: open or close the list)",
  },
  { key: "r", action: "review", does: "Open or close the review of the changes" },
];

/** The action a key press asks for, or undefined when it is not a shortcut here. */
export function shortcutOf(event: KeyboardEvent): ShortcutAction | undefined {
  if (event.defaultPrevented || event.isComposing) return undefined;
  if (event.ctrlKey || event.altKey || event.metaKey) return undefined;
  if (isTextEntry(event.target)) return undefined;
  // A dialog has the keyboard (it handles its own Escape); the page beneath is inert.
  if (document.querySelector("dialog[open]") !== null) return undefined;
  return SHORTCUTS.find((shortcut) => shortcut.key === event.key)?.action;
}

function isTextEntry(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (!(target instanceof HTMLInputElement)) return false;
  // A checkbox or a radio takes no text: a letter there is still a shortcut.
  return !["checkbox", "radio", "button", "submit", "reset", "range", "color", "file"].includes(
    target.type,
  );
}
