/** Slash commands: which ones the sidecar's directory has, and running one in a session. */

import {
  CommandListSchema,
  DirectoryQuerySchema,
  ErrorBodySchema,
  RunCommandBodySchema,
  SendInputResultSchema,
  SessionIdParamsSchema,
} from "../../wire/http.js";
import { callSignal } from "../call-bounds.js";
import { forwardedRoute } from "../cluster-peers.js";
import type { SidecarContext } from "../context.js";
import { carriesIdempotencyKey } from "../idempotency.js";
import { projectQuery } from "../requested-directory.js";
import type { SidecarApp } from "../sidecar-app.js";
import { admittedInput } from "./admitted-input.js";
import { ACTION_ERRORS, ERROR_RESPONSES } from "./meta.js";

export function registerCommandRoutes(app: SidecarApp, ctx: SidecarContext): void {
  app.get(
    "/v1/commands",
    {
      schema: {
        summary:
          "The slash commands of the sidecar's directory: its .opencode/command files, the config's commands, OpenCode's built-ins, skills and MCP prompts (capabilities.commands; 422 on other backends)",
        querystring: DirectoryQuerySchema,
        response: {
          200: CommandListSchema,
          ...ERROR_RESPONSES,
          422: ErrorBodySchema,
          502: ErrorBodySchema,
        },
      },
    },
    async (request) => ({
      commands: await ctx.bridge.commands(await projectQuery(ctx, request.query.directory)),
    }),
  );

  app.post(
    "/v1/sessions/:id/command",
    {
      schema: {
        summary:
          "Runs a slash command as an input: its template with the arguments put in is sent like POST /inputs sends a text (same delivery rules; its turn is a normal turn). 400 for a command not in GET /v1/commands (the message names them), 422 on other backends",
        params: SessionIdParamsSchema,
        body: RunCommandBodySchema,
        response: {
          202: SendInputResultSchema,
          ...ACTION_ERRORS,
        },
      },
      // In a cluster, a session another sidecar drives runs it there.
      ...forwardedRoute(ctx, app, { repeatable: carriesIdempotencyKey }),
    },
    async (request, reply) => {
      const { id } = request.params;
      const body = request.body;
      const { name, arguments: args = "", delivery } = body;
      const session = await ctx.sessions.open(id, { signal: callSignal(ctx) });
      const run = async () => {
        const { turn, prompt } = await session.runCommand(name, args, {
          delivery,
          signal: callSignal(ctx),
        });
        const inputId = await admittedInput(session, turn, prompt);
        return { turnId: turn.id, ...(inputId === undefined ? {} : { inputId }) };
      };
      if (body.idempotencyKey === undefined) return reply.code(202).send(await run());
      const { answer, replayed } = await ctx.idempotency.run(id, body.idempotencyKey, body, run);
      if (replayed) {
        ctx.metrics.idempotentReplays.inc();
        void reply.header("idempotent-replayed", "true");
      }
      return reply.code(202).send(answer);
    },
  );
}
