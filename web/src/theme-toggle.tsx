import { useState } from "preact/hooks";
import { currentTheme, setTheme } from "./theme.js";

export function ThemeToggle() {
  const [theme, setState] = useState(currentTheme);
  const other = theme === "dark" ? "light" : "dark";
  return (
    <button
      type="button"
      class="theme-toggle"
      data-testid="theme-toggle"
      aria-label={`Switch to the ${other} theme`}
      onClick={() => {
        setTheme(other);
        setState(other);
      }}
    >
      {theme === "dark" ? "☀" : "☾"}
    </button>
  );
}
