/** Compaction on demand: the session's history summarised for the following turns. */

import { OkSchema, SessionIdParamsSchema } from "../../wire/http.js";
import { callSignal } from "../call-bounds.js";
import { forwardedRoute } from "../cluster-peers.js";
import type { SidecarContext } from "../context.js";
import type { SidecarApp } from "../sidecar-app.js";
import { ACTION_ERRORS } from "./meta.js";

export function registerCompactRoutes(app: SidecarApp, ctx: SidecarContext): void {
  app.post(
    "/v1/sessions/:id/compact",
    {
      schema: {
        summary:
          "Compacts the session's history into a summary the model writes (capabilities.compact); answers once it is done, session.compacted follows and the conversation's `compacted` says how many messages it summarised. On serve, the bridge's own: a summary turn (kept in the transcript), then the session goes on in a new OpenCode session primed with the summary (session.compacted { summary }, session.rehydrated). 409 while the session is busy, 422 where the backend cannot (subprocess), 502 when the summary turn does not complete",
        params: SessionIdParamsSchema,
        response: {
          200: OkSchema,
          ...ACTION_ERRORS,
        },
      },
      ...forwardedRoute(ctx, app),
    },
    async (request) => {
      await ctx.sessions.compact(request.params.id, { signal: callSignal(ctx) });
      return { ok: true as const };
    },
  );
}
