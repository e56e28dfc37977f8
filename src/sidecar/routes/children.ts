/**
 * A subagent's child session, read through its parent (`subagent.started` names it): its
 * conversation and its transcript, from the open parent's runtime or, for a kept parent, from
 * the store (a child's events are kept there under the child's own id). Its live events come
 * on the streams: subscribe to the child's id while the parent is open.
 */
import type { CanonicalEvent } from "../../events/canonical.js";
import { conversationOf } from "../../wire/conversation.js";
import {
  ChildParamsSchema,
  ConversationSchema,
  ErrorBodySchema,
  TranscriptQuerySchema,
} from "../../wire/http.js";
import { callSignal } from "../call-bounds.js";
import type { SidecarContext } from "../context.js";
import { ApiError } from "../errors.js";
import { childOf } from "../session-records.js";
import type { SidecarApp } from "../sidecar-app.js";
import { ERROR_RESPONSES } from "./meta.js";
import { durableEvents, sendNdjson } from "./sessions.js";

export function registerChildRoutes(app: SidecarApp, ctx: SidecarContext): void {
  app.get(
    "/v1/sessions/:id/children/:childId/conversation",
    {
      schema: {
        summary: "A subagent's child session as messages and parts",
        params: ChildParamsSchema,
        response: { 200: ConversationSchema, ...ERROR_RESPONSES, 409: ErrorBodySchema },
      },
    },
    async (request) => {
      const { id, childId } = request.params;
      return conversationOf(await childEvents(ctx, id, childId), childId);
    },
  );

  app.get(
    "/v1/sessions/:id/children/:childId/transcript",
    {
      schema: {
        summary: "A subagent's child session's durable events as NDJSON",
        params: ChildParamsSchema,
        querystring: TranscriptQuerySchema,
        produces: ["application/x-ndjson"],
      },
    },
    async (request, reply) => {
      const { id, childId } = request.params;
      return sendNdjson(reply, await childEvents(ctx, id, childId), request.query.after);
    },
  );
}

/** The kept events of `childId`, once the parent `id` is known to have started it. */
async function childEvents(
  ctx: SidecarContext,
  id: string,
  childId: string,
): Promise<CanonicalEvent[]> {
  const store = ctx.store;
  // A kept parent is read from the store without opening it; without a store it is opened.
  const open =
    ctx.sessions.peek(id) ??
    (store === undefined ? await ctx.sessions.open(id, { signal: callSignal(ctx) }) : undefined);
  if (open !== undefined) {
    const child = childOf(open, childId);
    if (child === undefined) throw notAChild(id, childId);
    return child.transcript();
  }
  const started = (await durableEvents(ctx, id)).some(
    (event) => event.type === "subagent.started" && event.data.childSessionId === childId,
  );
  if (!started || store === undefined) throw notAChild(id, childId);
  return store.read(childId);
}

function notAChild(id: string, childId: string): ApiError {
  return new ApiError(
    "not_found",
    `${JSON.stringify(childId)} is not a child session of ${id}; take the id from a subagent.started event`,
  );
}
