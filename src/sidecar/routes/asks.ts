/** Answers to asks: permission replies, question answers and rejections. */
import type { PendingAsk, Session } from "../../runtime/session/session.js";
import {
  AskParamsSchema,
  OkSchema,
  PermissionReplyBodySchema,
  QuestionAnswerBodySchema,
} from "../../wire/http.js";
import { callSignal } from "../call-bounds.js";
import { forwardedRoute } from "../cluster-peers.js";
import type { SidecarContext } from "../context.js";
import { ApiError } from "../errors.js";
import type { SidecarApp } from "../sidecar-app.js";
import { UPSTREAM_ERRORS } from "./meta.js";

export function registerAskRoutes(app: SidecarApp, ctx: SidecarContext): void {
  // In a cluster, answers for a session another sidecar drives go to it (forwardedRoute).
  const forwarded = forwardedRoute(ctx, app);
  app.post(
    "/v1/sessions/:id/permissions/:requestId",
    {
      schema: {
        summary: "Answers a permission ask: once, always, or reject (with a message for the model)",
        params: AskParamsSchema,
        body: PermissionReplyBodySchema,
        response: { 200: OkSchema, ...UPSTREAM_ERRORS },
      },
      ...forwarded,
    },
    async (request) => {
      const { id, requestId } = request.params;
      const session = await waitingAsk(ctx, id, requestId, "permission");
      const { reply, message } = request.body;
      await session.replyPermission(requestId, reply, {
        ...(message === undefined ? {} : { message }),
        signal: callSignal(ctx),
      });
      return { ok: true as const };
    },
  );

  app.post(
    "/v1/sessions/:id/questions/:requestId",
    {
      schema: {
        summary: "Answers a question ask: the chosen labels (or free text), one list per question",
        params: AskParamsSchema,
        body: QuestionAnswerBodySchema,
        response: { 200: OkSchema, ...UPSTREAM_ERRORS },
      },
      ...forwarded,
    },
    async (request) => {
      const { id, requestId } = request.params;
      const session = await waitingAsk(ctx, id, requestId, "question");
      await session.answerQuestion(requestId, request.body.answers, { signal: callSignal(ctx) });
      return { ok: true as const };
    },
  );

  app.post(
    "/v1/sessions/:id/questions/:requestId/reject",
    {
      schema: {
        summary: "Declines a question ask (the model is told)",
        params: AskParamsSchema,
        response: { 200: OkSchema, ...UPSTREAM_ERRORS },
      },
      ...forwarded,
    },
    async (request) => {
      const { id, requestId } = request.params;
      const session = await waitingAsk(ctx, id, requestId, "question");
      await session.rejectQuestion(requestId, { signal: callSignal(ctx) });
      return { ok: true as const };
    },
  );
}

/** The session, when `requestId` is one of its waiting asks of that kind; else `not_found`. */
async function waitingAsk(
  ctx: SidecarContext,
  id: string,
  requestId: string,
  kind: PendingAsk["kind"],
): Promise<Session> {
  const session = await ctx.sessions.open(id, { signal: callSignal(ctx) });
  const waiting = session.pendingAsks.some(
    (ask) => ask.requestId === requestId && ask.kind === kind,
  );
  if (!waiting) {
    throw new ApiError(
      "not_found",
      `no ${kind} ask ${JSON.stringify(requestId)} is waiting in session ${id} ` +
        "(answered already, by another client perhaps, or not one of this session's); GET the session for its pendingAsks",
    );
  }
  return session;
}
