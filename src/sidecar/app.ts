/**
 * The sidecar's HTTP application: security first, then the routes, every error answered as
 * `{ error: { code, message, details? } }` with its status, one log line per request.
 */
import fastifyMultipart from "@fastify/multipart";
import fastifySwagger from "@fastify/swagger";
import Fastify, { type FastifyReply } from "fastify";
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from "fastify-type-provider-zod";
import { clientErrorHandler, receiveDeadline, receiveTimeoutError } from "./client-errors.js";
import { ConnectionsPerClient } from "./connections-per-client.js";
import type { SidecarContext } from "./context.js";
import { ApiError, toApiError } from "./errors.js";
import { streamSchemas } from "./openapi-components.js";
import { redactUrl } from "./redact.js";
import { registerAgentRoutes } from "./routes/agents.js";
import { registerAskRoutes } from "./routes/asks.js";
import { registerChangesRoutes } from "./routes/changes.js";
import { registerChildRoutes } from "./routes/children.js";
import { registerCommandRoutes } from "./routes/commands.js";
import { registerCompactRoutes } from "./routes/compact.js";
import { registerFileRoutes } from "./routes/files.js";
import { registerImportRoutes } from "./routes/imports.js";
import { registerInputRoutes } from "./routes/inputs.js";
import { registerLineageRoutes } from "./routes/lineage.js";
import { registerLocationListRoutes } from "./routes/location-lists.js";
import { registerMetaRoutes } from "./routes/meta.js";
import { registerProjectRoutes } from "./routes/projects.js";
import { registerRemoteRoutes } from "./routes/remote.js";
import { registerSessionRoutes } from "./routes/sessions.js";
import { securityHook } from "./security.js";
import type { SidecarApp } from "./sidecar-app.js";
import { registerStreamRoutes } from "./streams/index.js";
import { registerWebRoutes } from "./web/routes.js";

/** Builds the app (not listening: `startSidecar` listens; tests call `app.inject()`). */
export function buildApp(ctx: SidecarContext): SidecarApp {
  const app = Fastify({
    // https when given a certificate; the instance is used the same way (SidecarApp).
    ...(ctx.tls === undefined ? {} : { https: { cert: ctx.tls.cert, key: ctx.tls.key } }),
    logger: false, // the sidecar logs through ctx.logger, redacted (see onResponse below)
    bodyLimit: ctx.limits.jsonBodyBytes,
    // While stopping, the security hook answers 503 itself, in the API's error shape.
    return503OnClosing: false,
    // Bounds receiving the headers (Node stops bounding a request once a route has it: the
    // body is receiveDeadline's), answered 408 by clientErrorHandler. Node checks it on a
    // timer of its own, 30 s by default: a short bound (tests) is checked often enough to hold.
    requestTimeout: ctx.limits.receiveTimeoutMs,
    http: { connectionsCheckingInterval: checkingInterval(ctx.limits.receiveTimeoutMs) },
    clientErrorHandler: clientErrorHandler(ctx.limits.receiveTimeoutMs),
    forceCloseConnections: "idle",
    routerOptions: { maxParamLength: 500 },
    // The router's own errors (a bad %-escape, an over-long id) come before any handler.
    frameworkErrors: (error, _request, reply) => {
      const apiError = new ApiError(
        "invalid_request",
        error.code === "FST_ERR_MAX_PARAM_LENGTH"
          ? "a path segment is too long (ids are at most 200 characters)"
          : `the URL cannot be read (${error.message}); escape it properly`,
      );
      // Generic over the route's types, of which there are none yet: the plain reply.
      void (reply as FastifyReply).code(apiError.status).send(apiError.body());
    },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const connections = new ConnectionsPerClient(ctx.limits.connectionsPerClient);
  connections.watch(app.server);
  app.addHook("onRequest", async (request, reply) => {
    if (!connections.isOver(request.raw.socket)) return;
    const refused = new ApiError(
      "too_many_connections",
      `this client holds ${ctx.limits.connectionsPerClient} connections to the sidecar already; close one (or reuse it) and try again`,
    );
    await reply.code(refused.status).header("connection", "close").send(refused.body());
  });
  app.addHook("onRequest", securityHook(ctx));
  const deadline = receiveDeadline(ctx.limits.receiveTimeoutMs);
  app.addHook("onRequest", deadline.hook);
  app.addHook("onResponse", async (request, reply) => {
    const route = request.routeOptions.url ?? "(none)";
    const status = reply.statusCode;
    ctx.metrics.httpRequests.inc({ route, method: request.method, status: String(status) });
    ctx.logger.info("request", {
      reqId: request.id,
      method: request.method,
      url: redactUrl(request.url),
      route,
      status,
      ms: Math.round(reply.elapsedTime),
    });
  });

  app.setErrorHandler(async (error, request, reply) => {
    // The body stopped coming: answered 408 already, on a connection now closed.
    if (deadline.timedOut(request)) {
      const timeout = receiveTimeoutError(ctx.limits.receiveTimeoutMs);
      return reply.code(timeout.status).send(timeout.body());
    }
    const { error: apiError, unexpected } = toApiError(error);
    if (unexpected) {
      ctx.logger.error("request failed", {
        reqId: request.id,
        route: request.routeOptions.url,
        error: describe(error),
      });
    }
    return reply.code(apiError.status).send(apiError.body());
  });
  app.setNotFoundHandler(async (request, reply) => {
    const error = new ApiError(
      "not_found",
      `no route ${request.method} ${request.url.split("?")[0]}; the API is listed at /v1/openapi.json`,
    );
    return reply.code(error.status).send(error.body());
  });

  void app.register(fastifySwagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "opencode-bridge sidecar",
        version: "1",
        description: "The bridge as an HTTP + WebSocket service; see docs/sidecar.md.",
      },
      components: {
        securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
        schemas: streamSchemas(),
      },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });
  void app.register(fastifyMultipart, {
    limits: {
      fileSize: ctx.limits.attachmentBytes,
      files: ctx.limits.attachmentsPerInput,
      fields: 10,
      fieldSize: ctx.limits.jsonBodyBytes,
      parts: ctx.limits.attachmentsPerInput + 10,
    },
  });
  void app.register(async (scope) => {
    registerMetaRoutes(scope, ctx);
    registerSessionRoutes(scope, ctx);
    registerProjectRoutes(scope, ctx);
    registerChildRoutes(scope, ctx);
    registerInputRoutes(scope, ctx);
    registerAgentRoutes(scope, ctx);
    registerLineageRoutes(scope, ctx);
    registerImportRoutes(scope, ctx);
    registerCommandRoutes(scope, ctx);
    registerCompactRoutes(scope, ctx);
    registerLocationListRoutes(scope, ctx);
    registerRemoteRoutes(scope, ctx);
    registerChangesRoutes(scope, ctx);
    registerFileRoutes(scope, ctx);
    registerAskRoutes(scope, ctx);
  });
  void app.register(async (scope) => registerStreamRoutes(scope, ctx));
  if (ctx.webRoot !== undefined) registerWebRoutes(app, ctx.webRoot);
  return app;
}

/** How often Node looks for requests past the receive timeout: a quarter of it, 30 s at most. */
function checkingInterval(receiveTimeoutMs: number): number {
  return Math.min(30_000, Math.max(50, Math.floor(receiveTimeoutMs / 4)));
}

function describe(error: unknown): { name: string; message: string; stack?: string } {
  if (error instanceof Error) {
    return {
      name: error.name,
      message: error.message,
      ...(error.stack === undefined ? {} : { stack: error.stack }),
    };
  }
  return { name: typeof error, message: String(error) };
}
