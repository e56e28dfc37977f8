/** Agents: which ones a session can run as, and switching a session's agent. */

import {
  AgentListSchema,
  DirectoryQuerySchema,
  ErrorBodySchema,
  OkSchema,
  SessionIdParamsSchema,
  SwitchAgentBodySchema,
} from "../../wire/http.js";
import { callSignal } from "../call-bounds.js";
import { forwardedRoute } from "../cluster-peers.js";
import type { SidecarContext } from "../context.js";
import { projectQuery } from "../requested-directory.js";
import type { SidecarApp } from "../sidecar-app.js";
import { ACTION_ERRORS, ERROR_RESPONSES } from "./meta.js";

export function registerAgentRoutes(app: SidecarApp, ctx: SidecarContext): void {
  app.get(
    "/v1/agents",
    {
      schema: {
        summary:
          "The agents a session can switch to in the sidecar's directory: OpenCode's primary agents that are not hidden (capabilities.switchAgent; 422 on other backends)",
        querystring: DirectoryQuerySchema,
        response: {
          200: AgentListSchema,
          ...ERROR_RESPONSES,
          422: ErrorBodySchema,
          502: ErrorBodySchema,
        },
      },
    },
    async (request) => ({
      agents: await ctx.bridge.agents(await projectQuery(ctx, request.query.directory)),
    }),
  );

  app.post(
    "/v1/sessions/:id/agent",
    {
      schema: {
        summary:
          "Switches the session's agent for the next steps (capabilities.switchAgent); agent.switched follows. 400 for an agent not in GET /v1/agents (the message names them), 422 on other backends",
        params: SessionIdParamsSchema,
        body: SwitchAgentBodySchema,
        response: {
          200: OkSchema,
          ...ACTION_ERRORS,
        },
      },
      // In a cluster, a session another sidecar drives is switched there.
      ...forwardedRoute(ctx, app),
    },
    async (request) => {
      const { id } = request.params;
      const session = await ctx.sessions.open(id, { signal: callSignal(ctx) });
      await session.switchAgent(request.body.agent, { signal: callSignal(ctx) });
      ctx.sessions.noteAgent(id, request.body.agent);
      return { ok: true as const };
    },
  );
}
