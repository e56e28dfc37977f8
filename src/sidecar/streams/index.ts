/**
 * The stream routes (`GET /v1/ws`, `GET /v1/sessions/:id/events`): owned by the streams part
 * (see /work/briefs/sidecar-spec.md). Until it lands, the sidecar serves no streams.
 */
import type { SidecarContext } from "../context.js";
import type { SidecarApp } from "../sidecar-app.js";

/** Registers the WebSocket and SSE routes on `app` (an encapsulated scope of the sidecar's app). */
export async function registerStreamRoutes(_app: SidecarApp, _ctx: SidecarContext): Promise<void> {}
