/** What the sidecar's directory offers beside sessions, read only: MCP servers, skills. */

import {
  DirectoryQuerySchema,
  ErrorBodySchema,
  McpStatusSchema,
  SkillListSchema,
} from "../../wire/http.js";
import type { SidecarContext } from "../context.js";
import { projectQuery } from "../requested-directory.js";
import type { SidecarApp } from "../sidecar-app.js";
import { ERROR_RESPONSES } from "./meta.js";

const LIST_ERRORS = { ...ERROR_RESPONSES, 422: ErrorBodySchema, 502: ErrorBodySchema } as const;

export function registerLocationListRoutes(app: SidecarApp, ctx: SidecarContext): void {
  app.get(
    "/v1/mcp",
    {
      schema: {
        summary:
          "The MCP servers configured for the sidecar's directory and their state (connected, disabled, failed with its error, needs_auth, …); none configured: an empty list (capabilities.mcpStatus; 422 on other backends)",
        querystring: DirectoryQuerySchema,
        response: { 200: McpStatusSchema, ...LIST_ERRORS },
      },
    },
    async (request) => ({
      servers: await ctx.bridge.mcpStatus(await projectQuery(ctx, request.query.directory)),
    }),
  );

  app.get(
    "/v1/skills",
    {
      schema: {
        summary:
          "The skills the model may load in the sidecar's directory, OpenCode's built-in ones included (capabilities.skills; 422 on other backends)",
        querystring: DirectoryQuerySchema,
        response: { 200: SkillListSchema, ...LIST_ERRORS },
      },
    },
    async (request) => ({
      skills: await ctx.bridge.skills(await projectQuery(ctx, request.query.directory)),
    }),
  );
}
