/** Inputs, interrupts, undo and redo, model switches: what drives a session's turns. */
import type { AttachmentSpec } from "../../backends/attachments.js";
import type { ModelRef } from "../../events/canonical.js";
import type { Session } from "../../runtime/session/session.js";
import {
  ErrorBodySchema,
  InputAttachmentParamsSchema,
  InputParamsSchema,
  OkSchema,
  RevertBodySchema,
  SENT_IMAGE_TYPES,
  type SendInputBody,
  SendInputBodySchema,
  type SendInputResult,
  SendInputResultSchema,
  SessionIdParamsSchema,
  SwitchModelBodySchema,
} from "../../wire/http.js";
import { callSignal } from "../call-bounds.js";
import { forwardedRoute } from "../cluster-peers.js";
import type { SidecarContext } from "../context.js";
import { ApiError } from "../errors.js";
import { carriesIdempotencyKey } from "../idempotency.js";
import { DirectoryGoneError, directoryGone } from "../local-directories.js";
import type { SidecarApp } from "../sidecar-app.js";
import { admittedInput } from "./admitted-input.js";
import { attachmentSpecs, multipartInput } from "./input-attachments.js";
import { ERROR_RESPONSES } from "./meta.js";
import { modelCatalog } from "./models.js";

const INPUT_ERRORS = {
  ...ERROR_RESPONSES,
  409: ErrorBodySchema,
  413: ErrorBodySchema,
  422: ErrorBodySchema,
  502: ErrorBodySchema,
} as const;

/**
 * A session followed since before its directory was deleted can be read, not continued: said
 * so, rather than OpenCode's opaque 500. (A kept one is not opened at all: `OpenSessions.open`.)
 */
async function refuseWithoutDirectory(ctx: SidecarContext, session: Session): Promise<void> {
  if (await directoryGone(ctx.bridge, session.directory)) {
    throw new DirectoryGoneError(session.id, session.directory);
  }
}

export function registerInputRoutes(app: SidecarApp, ctx: SidecarContext): void {
  // In a cluster, commands for a session another sidecar drives go to it (forwardedRoute).
  const forwarded = forwardedRoute(ctx, app);
  app.post(
    "/v1/sessions/:id/inputs",
    {
      schema: {
        summary:
          "Sends an input (JSON, or multipart/form-data with files); a retry with the same idempotencyKey is admitted once",
        params: SessionIdParamsSchema,
        body: SendInputBodySchema,
        response: { 202: SendInputResultSchema, ...INPUT_ERRORS },
      },
      ...forwardedRoute(ctx, app, { repeatable: carriesIdempotencyKey }),
      preValidation: async (request) => {
        // Multipart fields become the JSON body, so one schema checks both forms.
        if (!request.isMultipart()) return;
        const unchecked: { body: unknown } = request; // checked by the route's schema next
        unchecked.body = await multipartInput(request, ctx);
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const body = request.body;
      const session = await ctx.sessions.open(id, { signal: callSignal(ctx) });
      await refuseWithoutDirectory(ctx, session);
      const send = () => sendInput(ctx, session, body);
      if (body.idempotencyKey === undefined) return reply.code(202).send(await send());
      const { answer, replayed } = await ctx.idempotency.run(id, body.idempotencyKey, body, send);
      if (replayed) {
        ctx.metrics.idempotentReplays.inc();
        void reply.header("idempotent-replayed", "true");
      }
      return reply.code(202).send(answer);
    },
  );

  app.get(
    "/v1/sessions/:id/inputs/:inputId/attachments/:index",
    {
      schema: {
        summary:
          "An image an input carried (the `index`-th attachment, from 0), while this sidecar keeps it: sent through it, and recently",
        params: InputAttachmentParamsSchema,
        produces: [...SENT_IMAGE_TYPES],
      },
    },
    async (request, reply) => {
      const { id, inputId, index } = request.params;
      const image = ctx.sentImages.get(id, inputId, index);
      if (image === undefined) {
        throw new ApiError(
          "not_found",
          `attachment ${index} of input ${inputId} of session ${id} is not kept here: only images sent through this sidecar are, the most recent ${ctx.limits.sentImageBytes} bytes of them`,
        );
      }
      // The bytes never change; whoever has the token may read them (as the transcript).
      return reply
        .header("content-type", image.mime)
        .header("cache-control", "private, max-age=86400, immutable")
        .header("content-security-policy", "default-src 'none'; sandbox")
        .send(Buffer.from(image.bytes.buffer, image.bytes.byteOffset, image.bytes.byteLength));
    },
  );

  app.delete(
    "/v1/sessions/:id/inputs/:inputId",
    {
      schema: {
        summary:
          "Removes a queued input before it is sent (capabilities.cancelQueued); it ends input.cancelled",
        params: InputParamsSchema,
        response: { 200: OkSchema, ...INPUT_ERRORS },
      },
      ...forwarded,
    },
    async (request) => {
      const { id, inputId } = request.params;
      const session = await ctx.sessions.open(id, { signal: callSignal(ctx) });
      session.cancelInput(inputId);
      return { ok: true as const };
    },
  );

  app.post(
    "/v1/sessions/:id/interrupt",
    {
      schema: {
        summary: "Interrupts the running turn (it ends `interrupted`; the session stays usable)",
        params: SessionIdParamsSchema,
        response: { 200: OkSchema, ...INPUT_ERRORS },
      },
      ...forwarded,
    },
    async (request) => {
      const session = await ctx.sessions.open(request.params.id, { signal: callSignal(ctx) });
      await session.interrupt({ signal: callSignal(ctx) });
      return { ok: true as const };
    },
  );

  app.post(
    "/v1/sessions/:id/revert",
    {
      schema: {
        summary:
          "Undo: takes the session back to before an input (capabilities.revert), the files it and every input after it changed put back; session.reverted (naming the files) follows, and the conversation moves those messages to `undone`. The next input makes it final; /unrevert takes it back. 409 while a turn runs, 422 for the first input",
        params: SessionIdParamsSchema,
        body: RevertBodySchema,
        response: { 200: OkSchema, ...INPUT_ERRORS },
      },
      ...forwarded,
    },
    async (request) => {
      const session = await ctx.sessions.open(request.params.id, { signal: callSignal(ctx) });
      await refuseWithoutDirectory(ctx, session);
      await session.revert(request.body.inputId, { signal: callSignal(ctx) });
      return { ok: true as const };
    },
  );

  app.post(
    "/v1/sessions/:id/unrevert",
    {
      schema: {
        summary:
          "Redo: takes back the last undo while no input has followed it, its messages and file changes restored; session.unreverted follows. 409 while a turn runs or when there is nothing to redo",
        params: SessionIdParamsSchema,
        response: { 200: OkSchema, ...INPUT_ERRORS },
      },
      ...forwarded,
    },
    async (request) => {
      const session = await ctx.sessions.open(request.params.id, { signal: callSignal(ctx) });
      await refuseWithoutDirectory(ctx, session);
      await session.unrevert({ signal: callSignal(ctx) });
      return { ok: true as const };
    },
  );

  app.post(
    "/v1/sessions/:id/model",
    {
      schema: {
        summary: "Switches the model for the next steps",
        params: SessionIdParamsSchema,
        body: SwitchModelBodySchema,
        response: { 200: OkSchema, ...INPUT_ERRORS },
      },
      ...forwarded,
    },
    async (request) => {
      const { id } = request.params;
      const session = await ctx.sessions.open(id, { signal: callSignal(ctx) });
      const model = { providerID: request.body.providerID, modelID: request.body.modelID };
      await refuseUnknownModel(ctx, model);
      await session.switchModel(model, { signal: callSignal(ctx) });
      ctx.sessions.noteModel(id, model);
      return { ok: true as const };
    },
  );
}

/**
 * OpenCode takes a switch to a model no provider has, and fails every turn after it: such a
 * model is refused here, as a new session's is. (`opencode run` has no catalog to ask.)
 */
async function refuseUnknownModel(ctx: SidecarContext, model: ModelRef): Promise<void> {
  if (ctx.bridge.backend === "subprocess") return;
  const { models } = await modelCatalog(ctx);
  const listed = models.some(
    (entry) => entry.providerID === model.providerID && entry.modelID === model.modelID,
  );
  if (listed) return;
  throw new ApiError(
    "invalid_request",
    `model ${model.providerID}/${model.modelID} is not in the server's model catalog; GET /v1/models lists them`,
  );
}

async function sendInput(
  ctx: SidecarContext,
  session: Session,
  body: SendInputBody,
): Promise<SendInputResult> {
  if (
    body.delivery === "steer" &&
    body.ifCannotSteer === "reject" &&
    !session.capabilities.nativeSteer &&
    session.runningTurn !== undefined
  ) {
    throw new ApiError(
      "unsupported",
      `the ${session.backend} backend cannot steer a running turn; send with delivery "queue", ` +
        'or without ifCannotSteer: "reject" to let the bridge queue it',
    );
  }
  const files =
    body.attachments === undefined
      ? undefined
      : attachmentSpecs(body.attachments, ctx.limits.attachmentBytes);
  const turn = await session.send(body.text, {
    delivery: body.delivery,
    ...(files === undefined ? {} : { files }),
    signal: callSignal(ctx),
  });
  const inputId = await admittedInput(session, turn, body.text);
  if (inputId !== undefined) keepImages(ctx, session.id, inputId, files ?? []);
  return { turnId: turn.id, ...(inputId === undefined ? {} : { inputId }) };
}

/** The images among an input's attachments, to show again (`SentImages`: bounded, in memory). */
function keepImages(
  ctx: SidecarContext,
  sessionId: string,
  inputId: string,
  files: readonly AttachmentSpec[],
): void {
  for (const [index, file] of files.entries()) {
    if (typeof file === "string" || file.mime === undefined) continue;
    const bytes = typeof file.data === "string" ? Buffer.from(file.data, "base64") : file.data;
    ctx.sentImages.keep(sessionId, inputId, index, { mime: file.mime, bytes });
  }
}
