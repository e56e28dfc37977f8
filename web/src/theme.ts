/**
 * Light or dark: `<html data-theme>`, from the system's preference until the user picks one
 * with the toggle (kept in localStorage: a preference, not a secret).
 */
export type Theme = "light" | "dark";
const KEY = "ocb-theme";

function systemTheme(): Theme {
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

export function currentTheme(): Theme {
  return document.documentElement.dataset.theme === "dark" ? "dark" : "light";
}

export function applyStoredTheme(): void {
  const stored = localStorage.getItem(KEY);
  setTheme(stored === "light" || stored === "dark" ? stored : systemTheme(), false);
  // Until the user picks one, the page follows the system's as it changes.
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
    if (localStorage.getItem(KEY) === null) setTheme(systemTheme(), false);
  });
}

export function setTheme(theme: Theme, remember = true): void {
  document.documentElement.dataset.theme = theme;
  if (remember) localStorage.setItem(KEY, theme);
}
