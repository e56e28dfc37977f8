import { useEffect, useState } from "preact/hooks";
import { currentTheme, setTheme, type Theme } from "./theme.js";

export function ThemeToggle() {
  // The page's theme is the truth (it follows the system's until a pick): watched, not copied.
  const [theme, setShown] = useState<Theme>(currentTheme);
  useEffect(() => {
    const watch = new MutationObserver(() => setShown(currentTheme()));
    watch.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
    return () => watch.disconnect();
  }, []);
  const other = theme === "dark" ? "light" : "dark";
  return (
    <button
      type="button"
      class="theme-toggle"
      data-testid="theme-toggle"
      aria-label={`Switch to the ${other} theme`}
      onClick={() => setTheme(currentTheme() === "dark" ? "light" : "dark")}
    >
      {theme === "dark" ? "☀" : "☾"}
    </button>
  );
}
