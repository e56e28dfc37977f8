/** The routes about the sidecar itself: health, metrics, its OpenAPI document, tickets, models. */

import {
  ErrorBodySchema,
  HealthSchema,
  ModelCatalogSchema,
  TicketSchema,
} from "../../wire/http.js";
import type { SidecarContext } from "../context.js";
import { RecentAnswer } from "../recent-answer.js";
import type { SidecarApp } from "../sidecar-app.js";
import { modelCatalog, opencodeIsUp } from "./models.js";

/** The error answers every authenticated route may give, for the OpenAPI document. */
export const ERROR_RESPONSES = {
  400: ErrorBodySchema,
  401: ErrorBodySchema,
  403: ErrorBodySchema,
  404: ErrorBodySchema,
  421: ErrorBodySchema,
  500: ErrorBodySchema,
} as const;

/** A route that reaches OpenCode, on a session that may be busy: 409 and 502 besides. */
export const UPSTREAM_ERRORS = {
  ...ERROR_RESPONSES,
  409: ErrorBodySchema,
  502: ErrorBodySchema,
} as const;

/** The same, where a backend may not have what is asked for: `422 unsupported` too. */
export const ACTION_ERRORS = { ...UPSTREAM_ERRORS, 422: ErrorBodySchema } as const;

export function registerMetaRoutes(app: SidecarApp, ctx: SidecarContext): void {
  // It takes no token: without the reuse, each check anyone sends would ask OpenCode.
  const opencodeHealth = new RecentAnswer(() => opencodeIsUp(ctx), ctx.limits.healthCacheMs);
  app.get(
    "/healthz",
    {
      schema: {
        summary: "Whether the sidecar and its OpenCode server are up (no token)",
        security: [],
        response: { 200: HealthSchema, 503: HealthSchema },
      },
    },
    async (_request, reply) => {
      const up = await opencodeHealth.get();
      return reply.code(up ? 200 : 503).send({ ok: up, opencode: up ? "up" : "down" });
    },
  );

  app.get(
    "/metrics",
    { schema: { summary: "Prometheus metrics (text format)", hide: true } },
    async (_request, reply) => {
      const { contentType, body } = await ctx.metrics.text();
      return reply.type(contentType).send(body);
    },
  );

  app.get(
    "/v1/openapi.json",
    {
      schema: {
        summary: "This document (OpenAPI 3.1), generated from the zod schemas",
        hide: true,
      },
    },
    async () => app.swagger(),
  );

  app.post(
    "/v1/tickets",
    {
      schema: {
        summary: "A single-use ticket (30 s) for a browser's WebSocket or SSE handshake",
        response: { 201: TicketSchema, ...ERROR_RESPONSES },
      },
    },
    async (_request, reply) => reply.code(201).send(ctx.tickets.issue()),
  );

  app.get(
    "/v1/models",
    {
      schema: {
        summary: "The model catalog of the OpenCode server",
        response: { 200: ModelCatalogSchema, ...ERROR_RESPONSES, 502: ErrorBodySchema },
      },
    },
    async () => modelCatalog(ctx),
  );
}
