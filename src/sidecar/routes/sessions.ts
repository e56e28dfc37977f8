/** Sessions: list, create, open (adopt), rename, release, kill, the conversation, the transcript. */
import type { FastifyReply } from "fastify";
import type { CanonicalEvent } from "../../events/canonical.js";
import { conversationOf } from "../../wire/conversation.js";
import {
  ConversationSchema,
  CreateSessionBodySchema,
  ErrorBodySchema,
  OkSchema,
  RenameSessionBodySchema,
  SessionIdParamsSchema,
  SessionInfoSchema,
  SessionListQuerySchema,
  SessionListSchema,
  TranscriptQuerySchema,
} from "../../wire/http.js";
import { LiveSnapshotSchema } from "../../wire/live-snapshot.js";
import { callSignal } from "../call-bounds.js";
import { forwardedRoute } from "../cluster-peers.js";
import type { SidecarContext } from "../context.js";
import { ApiError } from "../errors.js";
import { DirectoryGoneError } from "../local-directories.js";
import { requestedDirectory } from "../requested-directory.js";
import { refusedToLead } from "../session-cluster.js";
import type { SidecarApp } from "../sidecar-app.js";
import { ERROR_RESPONSES, UPSTREAM_ERRORS } from "./meta.js";

export function registerSessionRoutes(app: SidecarApp, ctx: SidecarContext): void {
  const { sessions } = ctx;

  app.get(
    "/v1/sessions",
    {
      schema: {
        summary:
          "The sessions, open or kept: all of them, or a page (limit, cursor), of one directory if asked",
        querystring: SessionListQuerySchema,
        response: { 200: SessionListSchema, ...ERROR_RESPONSES },
      },
    },
    async (request) => await sessions.list(request.query),
  );

  app.post(
    "/v1/sessions",
    {
      schema: {
        summary: "Creates a session (upstream too) and follows it",
        body: CreateSessionBodySchema,
        response: { 201: SessionInfoSchema, ...UPSTREAM_ERRORS },
      },
      preValidation: async (request) => {
        // No body (curl -X POST) is the empty object: every field has a default. A body of
        // `null` is not one: the schema refuses it.
        const unchecked: { body: unknown } = request;
        if (unchecked.body === undefined) unchecked.body = {};
      },
    },
    async (request, reply) => {
      const { title, model } = request.body;
      const directory = await requestedDirectory(ctx, request.body.directory);
      const session = await sessions.create({
        ...(directory === undefined ? {} : { directory }),
        ...(title === undefined ? {} : { title }),
        ...(model === undefined ? {} : { model }),
        signal: callSignal(ctx),
      });
      return reply.code(201).send(await sessions.info(session.id));
    },
  );

  app.get(
    "/v1/sessions/:id",
    {
      schema: {
        summary:
          "One session; a kept one is opened (adopted) on demand, unless its directory is gone (directoryMissing)",
        params: SessionIdParamsSchema,
        response: { 200: SessionInfoSchema, ...UPSTREAM_ERRORS },
      },
    },
    async (request) => {
      const id = request.params.id;
      try {
        await sessions.open(id, { signal: callSignal(ctx) });
      } catch (error) {
        // In a cluster, another sidecar drives it, or its directory is another server's; or its
        // directory is gone (it is read, not opened): what the store says is still an answer.
        if (!refusedToLead(error) && !(error instanceof DirectoryGoneError)) throw error;
      }
      return await sessions.info(id);
    },
  );

  app.patch(
    "/v1/sessions/:id",
    {
      schema: {
        summary: "Renames a session (the bridge's title; OpenCode has no rename)",
        params: SessionIdParamsSchema,
        body: RenameSessionBodySchema,
        response: { 200: SessionInfoSchema, ...UPSTREAM_ERRORS, 422: ErrorBodySchema },
      },
    },
    async (request) => {
      await sessions.rename(request.params.id, request.body.title);
      return await sessions.info(request.params.id);
    },
  );

  app.post(
    "/v1/sessions/:id/release",
    {
      schema: {
        summary: "Stops following a session; the upstream session is kept (GET opens it again)",
        params: SessionIdParamsSchema,
        response: { 200: SessionInfoSchema, ...UPSTREAM_ERRORS },
      },
    },
    async (request) => {
      const { id } = request.params;
      if ((await sessions.record(id)) === undefined && sessions.peek(id) === undefined) {
        throw new ApiError("not_found", `no session ${JSON.stringify(id)}`);
      }
      await sessions.release(id);
      return await sessions.info(id);
    },
  );

  app.delete(
    "/v1/sessions/:id",
    {
      schema: {
        summary: "Kills a session: interrupted, deleted upstream; its transcript stays",
        params: SessionIdParamsSchema,
        response: { 200: OkSchema, ...UPSTREAM_ERRORS },
      },
      // In a cluster, a session another sidecar drives is killed by it (forwardedRoute).
      ...forwardedRoute(ctx, app),
    },
    async (request) => {
      await sessions.kill(request.params.id, { signal: callSignal(ctx) });
      return { ok: true as const };
    },
  );

  app.get(
    "/v1/sessions/:id/conversation",
    {
      schema: {
        summary: "The session as messages and parts (conversationOf its transcript)",
        params: SessionIdParamsSchema,
        response: { 200: ConversationSchema, ...UPSTREAM_ERRORS },
      },
    },
    async (request) => {
      const { id } = request.params;
      return conversationOf(await durableEvents(ctx, id), id);
    },
  );

  app.get(
    "/v1/sessions/:id/live",
    {
      schema: {
        summary:
          "The session as a live view starts from it (liveConversationOf its transcript, without what streams): then subscribe after conversation.lastSeq",
        params: SessionIdParamsSchema,
        response: { 200: LiveSnapshotSchema, ...UPSTREAM_ERRORS },
      },
    },
    async (request) => {
      const { id } = request.params;
      return ctx.liveSnapshots.of(id, await durableEvents(ctx, id));
    },
  );

  app.get(
    "/v1/sessions/:id/transcript",
    {
      schema: {
        summary: "The session's durable events as NDJSON (one canonical event per line)",
        params: SessionIdParamsSchema,
        querystring: TranscriptQuerySchema,
        produces: ["application/x-ndjson"],
      },
    },
    async (request, reply) => {
      const events = await durableEvents(ctx, request.params.id);
      return sendNdjson(reply, events, request.query.after);
    },
  );
}

/** Durable events past `after` as NDJSON, one canonical event per line. */
export function sendNdjson(
  reply: FastifyReply,
  events: readonly CanonicalEvent[],
  after = 0,
): FastifyReply {
  const body = events
    .filter((event) => (event.seq ?? 0) > after)
    .map((event) => `${JSON.stringify(event)}\n`)
    .join("");
  return reply.type("application/x-ndjson; charset=utf-8").send(body);
}

/**
 * A session's kept events: from the open session, else from the store without opening it
 * (reading a killed session's transcript is fine), else by opening it.
 */
export async function durableEvents(ctx: SidecarContext, id: string): Promise<CanonicalEvent[]> {
  const open = ctx.sessions.peek(id);
  if (open !== undefined) return await open.transcript();
  if (ctx.store !== undefined) {
    if ((await ctx.sessions.record(id)) === undefined) {
      throw new ApiError(
        "not_found",
        `no session ${JSON.stringify(id)}; list them with GET /v1/sessions`,
      );
    }
    return await ctx.store.read(id);
  }
  return await (await ctx.sessions.open(id, { signal: callSignal(ctx) })).transcript();
}
