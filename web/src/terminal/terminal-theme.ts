/** The terminal's colours from the page's (base.css variables), so it follows light and dark. */
import type { ITheme, Terminal } from "@xterm/xterm";

export function themeFromPage(): ITheme {
  const css = getComputedStyle(document.documentElement);
  const color = (name: string) => css.getPropertyValue(name).trim();
  return {
    background: color("--bg-soft"),
    foreground: color("--fg"),
    cursor: color("--fg"),
    cursorAccent: color("--bg-soft"),
    // Translucent, so the selected text stays readable on either theme.
    selectionBackground: `${color("--accent")}66`,
  };
}

/**
 * Repaints `terminal` whenever the page's theme changes (theme.ts sets `data-theme` on the
 * root, from the toggle or the system's preference); returns the stop.
 */
export function followPageTheme(terminal: Terminal): () => void {
  terminal.options.theme = themeFromPage();
  const observer = new MutationObserver(() => {
    terminal.options.theme = themeFromPage();
  });
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
  return () => observer.disconnect();
}
