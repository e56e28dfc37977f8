/**
 * What a session changed and where it stands: its file changes (whole, or one turn's) with
 * diffs, its directory's working tree against the last commit, the agent's todo list, and what
 * it spent against its model's context. Reads, answered by the session's runtime (opened on
 * demand); `422 unsupported` where its backend cannot tell (`capabilities.changes`, `todos`).
 */

import {
  ErrorBodySchema,
  SessionChangesSchema,
  SessionContextSchema,
  SessionIdParamsSchema,
  TodoListSchema,
  TurnQuerySchema,
  VcsStatusSchema,
} from "../../wire/http.js";
import { callSignal } from "../call-bounds.js";
import { forwardedRoute } from "../cluster-peers.js";
import type { SidecarContext } from "../context.js";
import type { SidecarApp } from "../sidecar-app.js";
import { UPSTREAM_ERRORS } from "./meta.js";

export function registerChangesRoutes(app: SidecarApp, ctx: SidecarContext): void {
  // In a cluster, a session another sidecar drives is asked there: its runtime and its server
  // (OpenCode's snapshots and the working tree) are that sidecar's.
  const forwarded = forwardedRoute(ctx, app);
  app.get(
    "/v1/sessions/:id/changes",
    {
      schema: {
        summary:
          "The files the session's steps changed (or one turn's: ?turn=turnId, 404 for a turn not its own), each with its lines and unified diff of what those steps did (from OpenCode's snapshots before and after them on a managed server; against the last commit on an attached one; a session's leave out an undone turn); diffs cut at 64 KiB a file and 1 MiB in all (patchTruncated). capabilities.changes; 422 elsewhere",
        params: SessionIdParamsSchema,
        querystring: TurnQuerySchema,
        response: { 200: SessionChangesSchema, ...UPSTREAM_ERRORS, 422: ErrorBodySchema },
      },
      ...forwarded,
    },
    async (request) => {
      const session = await ctx.sessions.open(request.params.id, { signal: callSignal(ctx) });
      const { turn } = request.query;
      return await session.changes({
        signal: callSignal(ctx),
        ...(turn === undefined ? {} : { turnId: turn }),
      });
    },
  );

  app.get(
    "/v1/sessions/:id/vcs",
    {
      schema: {
        summary:
          "The working tree of the session's directory against its last commit: branch and changed files with their lines (capabilities.changes; 422 elsewhere)",
        params: SessionIdParamsSchema,
        response: { 200: VcsStatusSchema, ...UPSTREAM_ERRORS, 422: ErrorBodySchema },
      },
      ...forwarded,
    },
    async (request) => {
      const session = await ctx.sessions.open(request.params.id, { signal: callSignal(ctx) });
      return await session.vcsStatus({ signal: callSignal(ctx) });
    },
  );

  app.get(
    "/v1/sessions/:id/todos",
    {
      schema: {
        summary:
          "The agent's todo list as it last wrote it (todo.updated follows it live); capabilities.todos, 422 elsewhere",
        params: SessionIdParamsSchema,
        response: { 200: TodoListSchema, ...UPSTREAM_ERRORS, 422: ErrorBodySchema },
      },
      ...forwarded,
    },
    async (request) => {
      const session = await ctx.sessions.open(request.params.id, { signal: callSignal(ctx) });
      return { todos: await session.todos({ signal: callSignal(ctx) }) };
    },
  );

  app.get(
    "/v1/sessions/:id/context",
    {
      schema: {
        summary:
          "What the session spent (its steps' usage summed; its subagents' child sessions apart and in total), one turn's (?turn=turnId, else the latest) and the latest step's context tokens against its model's limit",
        params: SessionIdParamsSchema,
        querystring: TurnQuerySchema,
        response: { 200: SessionContextSchema, ...UPSTREAM_ERRORS },
      },
      ...forwarded,
    },
    async (request) => {
      const session = await ctx.sessions.open(request.params.id, { signal: callSignal(ctx) });
      const { turn } = request.query;
      return await session.context({
        signal: callSignal(ctx),
        ...(turn === undefined ? {} : { turnId: turn }),
      });
    },
  );
}
