/**
 * A session's files: a directory listed, a file read, files found by a few letters (for
 * `@`-mentions). Answered from the sidecar's own file system under the bridge's rule
 * (`backends/files/inside-directory.ts`): nothing outside the session directory, symlinks
 * resolved; a refusal is a 400 saying why.
 */
import {
  ErrorBodySchema,
  FileContentQuerySchema,
  FileContentSchema,
  FileListingSchema,
  FileListQuerySchema,
  FindFilesQuerySchema,
  FoundFilesSchema,
  SessionIdParamsSchema,
} from "../../wire/http.js";
import { callSignal } from "../call-bounds.js";
import type { SidecarContext } from "../context.js";
import type { SidecarApp } from "../sidecar-app.js";
import { ERROR_RESPONSES } from "./meta.js";

const RESPONSES = { ...ERROR_RESPONSES, 409: ErrorBodySchema } as const;

export function registerFileRoutes(app: SidecarApp, ctx: SidecarContext): void {
  app.get(
    "/v1/sessions/:id/files",
    {
      schema: {
        summary:
          "Lists a directory of the session's (`path`, relative to its directory; default the directory itself). 400 for a path outside it (`..`, absolute, a symlink leading out) or not a directory",
        params: SessionIdParamsSchema,
        querystring: FileListQuerySchema,
        response: { 200: FileListingSchema, ...RESPONSES },
      },
    },
    async (request) => {
      const session = await ctx.sessions.open(request.params.id, { signal: callSignal(ctx) });
      return await session.files.list(request.query.path ?? "");
    },
  );

  app.get(
    "/v1/sessions/:id/files/content",
    {
      schema: {
        summary:
          "Reads a file of the session's: its UTF-8 text (the first 1 MiB, `truncated`, of a larger one) or `binary: true`. 400 for a path outside the session directory, a directory, or not a regular file",
        params: SessionIdParamsSchema,
        querystring: FileContentQuerySchema,
        response: { 200: FileContentSchema, ...RESPONSES },
      },
    },
    async (request) => {
      const session = await ctx.sessions.open(request.params.id, { signal: callSignal(ctx) });
      return await session.files.read(request.query.path);
    },
  );

  app.get(
    "/v1/sessions/:id/files/find",
    {
      schema: {
        summary:
          "Finds the session's files and directories whose path holds the letters of `q` in order, best first (for @-mentions); .git and node_modules are skipped, symlinks not followed",
        params: SessionIdParamsSchema,
        querystring: FindFilesQuerySchema,
        response: { 200: FoundFilesSchema, ...RESPONSES },
      },
    },
    async (request) => {
      const session = await ctx.sessions.open(request.params.id, { signal: callSignal(ctx) });
      const { q, limit } = request.query;
      return await session.files.find(q, {
        signal: callSignal(ctx),
        ...(limit === undefined ? {} : { limit }),
      });
    },
  );
}
