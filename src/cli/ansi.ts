/** Terminal colours, in one place so that every command decides the same way when to use them. */

export const ANSI = {
  green: "\x1b[32m",
  red: "\x1b[31m",
  yellow: "\x1b[33m",
  cyan: "\x1b[36m",
  bold: "\x1b[1m",
  dim: "\x1b[2m",
} as const;
export const RESET = "\x1b[0m";

export type Style = keyof typeof ANSI;

/** Colour only for a terminal, and never when NO_COLOR is set to anything (no-color.org). */
export function wantsColor(
  stream: { isTTY?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  return stream.isTTY === true && !env.NO_COLOR;
}

/** `text` in `style` when `color` is on, else as it is. */
export function paint(text: string, style: Style, color: boolean): string {
  return color && text !== "" ? `${ANSI[style]}${text}${RESET}` : text;
}
