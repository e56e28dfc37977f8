/** Forks and continuations: a session from another's history, or one going on in a new OpenCode session. */

import { ForkBodySchema, SessionIdParamsSchema, SessionInfoSchema } from "../../wire/http.js";
import { callSignal } from "../call-bounds.js";
import { forwardedRoute } from "../cluster-peers.js";
import type { SidecarContext } from "../context.js";
import { DirectoryGoneError, directoryGone } from "../local-directories.js";
import type { SidecarApp } from "../sidecar-app.js";
import { ACTION_ERRORS } from "./meta.js";

export function registerLineageRoutes(app: SidecarApp, ctx: SidecarContext): void {
  app.post(
    "/v1/sessions/:id/fork",
    {
      schema: {
        summary:
          "Forks the session before its input `inputId` (capabilities.fork): a new session whose conversation is this one's up to that input, its turn and what followed left out (session.forked, SessionInfo.forkedFrom); the origin is unchanged. 404 for an input the session has not, 400 for one that started no turn of its own, 422 on other backends",
        params: SessionIdParamsSchema,
        body: ForkBodySchema,
        response: { 201: SessionInfoSchema, ...ACTION_ERRORS },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      await refuseWithoutDirectory(ctx, id);
      const fork = await ctx.sessions.fork(id, request.body.inputId, { signal: callSignal(ctx) });
      return reply.code(201).send(await ctx.sessions.info(fork.id));
    },
  );

  app.post(
    "/v1/sessions/:id/continue",
    {
      schema: {
        summary:
          "Continues a session whose OpenCode session was lost (deleted, or kept by another server) in a new one (capabilities.rehydrate): session.rehydrated names both, and the next input carries the conversation so far to the model. 409 while its OpenCode session still exists, 422 on other backends",
        params: SessionIdParamsSchema,
        response: { 200: SessionInfoSchema, ...ACTION_ERRORS },
      },
      // In a cluster, a session another sidecar drives is continued there.
      ...forwardedRoute(ctx, app),
    },
    async (request) => {
      const { id } = request.params;
      await refuseWithoutDirectory(ctx, id);
      const session = await ctx.sessions.continue(id, { signal: callSignal(ctx) });
      return await ctx.sessions.info(session.id);
    },
  );
}

/** A session whose directory is gone cannot take turns: neither can a fork or a continuation of it. */
async function refuseWithoutDirectory(ctx: SidecarContext, id: string): Promise<void> {
  const record = await ctx.sessions.record(id);
  if (record !== undefined && (await directoryGone(ctx.bridge, record.directory))) {
    throw new DirectoryGoneError(id, record.directory);
  }
}
