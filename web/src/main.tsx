/** The web chat's entry: theme first (no flash of the wrong one), then the app. */
import { render } from "preact";
import { App } from "./app.js";
import { applyStoredTheme } from "./theme.js";
import "./styles.css";

applyStoredTheme();
const root = document.getElementById("app");
if (root !== null) render(<App />, root);
