/** Bounds text that comes from elsewhere (a config, a model) before it is handed on. */

/** `text`, cut to at most `max` characters (the last one an ellipsis when cut). */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, Math.max(0, max - 1))}…`;
}
