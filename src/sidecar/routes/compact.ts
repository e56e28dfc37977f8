/** Compaction on demand: the session's history summarised for the following turns. */

import { ErrorBodySchema, OkSchema, SessionIdParamsSchema } from "../../wire/http.js";
import { callSignal } from "../call-bounds.js";
import { forwardedRoute } from "../cluster-peers.js";
import type { SidecarContext } from "../context.js";
import type { SidecarApp } from "../sidecar-app.js";
import { ERROR_RESPONSES } from "./meta.js";

export function registerCompactRoutes(app: SidecarApp, ctx: SidecarContext): void {
  app.post(
    "/v1/sessions/:id/compact",
    {
      schema: {
        summary:
          "Compacts the session's history into a summary the model writes (capabilities.compact); answers once it is done, session.compacted follows and the conversation's `compacted` says how many messages it summarised. 409 while a turn runs, 422 where the backend cannot (serve on OpenCode 1.18)",
        params: SessionIdParamsSchema,
        response: {
          200: OkSchema,
          ...ERROR_RESPONSES,
          409: ErrorBodySchema,
          422: ErrorBodySchema,
          502: ErrorBodySchema,
        },
      },
      ...forwardedRoute(ctx, app),
    },
    async (request) => {
      const session = await ctx.sessions.open(request.params.id, { signal: callSignal(ctx) });
      await session.compact({ signal: callSignal(ctx) });
      return { ok: true as const };
    },
  );
}
