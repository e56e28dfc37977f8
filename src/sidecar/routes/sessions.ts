import type { SidecarContext } from "../context.js";
import type { SidecarApp } from "../sidecar-app.js";

export function registerSessionRoutes(_app: SidecarApp, _ctx: SidecarContext): void {}
