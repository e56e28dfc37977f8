/**
 * The user's own OpenCode sessions (made by `opencode run`, the TUI, another client of the
 * server): listed in the allowed directories, and imported with their history.
 */
import type { UpstreamSessionInfo } from "../../runtime/bridge/bridge.js";
import {
  ErrorBodySchema,
  ImportSessionBodySchema,
  OpencodeSessionListQuerySchema,
  OpencodeSessionListSchema,
  SessionInfoSchema,
} from "../../wire/http.js";
import { callSignal } from "../call-bounds.js";
import type { SidecarContext } from "../context.js";
import { allowedDirectory } from "../requested-directory.js";
import type { SidecarApp } from "../sidecar-app.js";
import { ERROR_RESPONSES } from "./meta.js";

const IMPORT_ERRORS = {
  ...ERROR_RESPONSES,
  403: ErrorBodySchema,
  413: ErrorBodySchema,
  422: ErrorBodySchema,
  502: ErrorBodySchema,
} as const;

export function registerImportRoutes(app: SidecarApp, ctx: SidecarContext): void {
  app.get(
    "/v1/opencode-sessions",
    {
      schema: {
        summary:
          "The user's own OpenCode sessions (opencode run, the TUI, another client of the server) that the sidecar does not keep, in `directory` or under it (an allowed one; default: every allowed directory), the most recently updated first; subagents' child sessions left out. POST /v1/sessions/import takes one (capabilities.importSessions; 422 on other backends)",
        querystring: OpencodeSessionListQuerySchema,
        response: { 200: OpencodeSessionListSchema, ...IMPORT_ERRORS },
      },
    },
    async (request) => {
      const { directory } = request.query;
      if (directory !== undefined) await allowedDirectory(ctx, directory);
      const signal = callSignal(ctx);
      const found = new Map<string, UpstreamSessionInfo>();
      for (const root of directory === undefined ? ctx.allowedDirectories.roots : [directory]) {
        for (const session of await ctx.bridge.upstreamSessions({ directory: root, signal })) {
          found.set(session.id, session);
        }
      }
      const sessions = [...found.values()].sort((a, b) => b.updatedAt - a.updatedAt);
      return { sessions };
    },
  );

  app.post(
    "/v1/sessions/import",
    {
      schema: {
        summary:
          "Imports one of the user's own OpenCode sessions (GET /v1/opencode-sessions) and opens it: its whole history kept as canonical events, then session.imported; the session's id is `upstreamId`, and the next input carries the earlier conversation to the model. 201 when imported, 200 with the session when it was imported before (nothing is imported twice); 404 for a session OpenCode has not, 403 for one in a directory not allowed, 400 for a subagent's child session, 413 past 5,000 messages, 422 on other backends",
        body: ImportSessionBodySchema,
        response: { 200: SessionInfoSchema, 201: SessionInfoSchema, ...IMPORT_ERRORS },
      },
    },
    async (request, reply) => {
      const { upstreamId, directory } = request.body;
      if (directory !== undefined) await allowedDirectory(ctx, directory);
      const { session, imported } = await ctx.sessions.import(upstreamId, {
        ...(directory === undefined ? {} : { directory }),
        signal: callSignal(ctx),
        accept: async (info) => allowedDirectory(ctx, info.directory),
      });
      return reply.code(imported ? 201 : 200).send(await ctx.sessions.info(session.id));
    },
  );
}
