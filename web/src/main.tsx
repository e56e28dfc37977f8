/** The web chat's entry: theme first (no flash of the wrong one), then the app, then its worker. */
// First of all (a side effect, kept first): the open session's snapshot asked for before the
// rest of the bundle is evaluated (early-read.ts).
import "./early-read.js";
// Then (a side effect, kept before the client): zod configured before it builds schemas.
import "./zod-jitless.js";
import { render } from "preact";
import { App } from "./app.js";
import { registerServiceWorker } from "./register-service-worker.js";
import { applyStoredTheme } from "./theme.js";
import "./styles/base.css";
import "./styles/layout.css";
import "./styles/conversation.css";
import "./styles/working.css";
import "./styles/asks.css";
import "./styles/composer.css";
import "./styles/composer-pickers.css";
import "./styles/sessions.css";
import "./styles/side-panel.css";
import "./styles/review.css";
import "./styles/status.css";
import "./styles/workbench.css";
import "./styles/dialogs.css";
import "./styles/phone-targets.css";

applyStoredTheme();
const root = document.getElementById("app");
if (root !== null) render(<App />, root);
registerServiceWorker();
