/**
 * The sidecar's stream routes: `GET /v1/ws` (WebSocket, any number of session subscriptions)
 * and `GET /v1/sessions/:id/events` (SSE, one session), both fed by one `SessionFeeds`, so a
 * session read by many clients is read once. When the sidecar stops (`ctx.stopping`, or the
 * app closing), sockets get 1012 "sidecar stopping: resume from your last seq" and SSE streams
 * an `end` event. The protocol is in docs/sidecar-streams.md.
 */
import websocket from "@fastify/websocket";
import { z } from "zod";
import { WS_CLOSE } from "../../wire/ws.js";
import type { SidecarContext } from "../context.js";
import { ApiError } from "../errors.js";
import { PEER_ROUTE, RELAY_HEADER } from "../peer-routes.js";
import type { SidecarApp } from "../sidecar-app.js";
import { FeedRequestError, type FeedSource } from "./feed-types.js";
import { SessionFeeds } from "./session-feeds.js";
import { SseStream } from "./sse-stream.js";
import { streamLimitsOf } from "./stream-limits.js";
import { streamMetrics } from "./stream-metrics.js";
import { registerTerminalRoute, TerminalSockets } from "./terminal-socket.js";
import { UpgradeGuard } from "./upgrade-guard.js";
import { type StreamSocket, WsConnection } from "./ws-connection.js";

/** The close reason (WebSocket) and `end` message (SSE) when the sidecar stops. */
export const STOPPING_REASON = "sidecar stopping: resume from your last seq";

const EventsParamsSchema = z.object({ id: z.string().min(1).max(200) });
const EventsQuerySchema = z.object({
  after: z.string().optional(),
  ticket: z.string().optional(),
});

/** Registers the WebSocket and SSE routes on `app` (an encapsulated scope of the sidecar's app). */
export async function registerStreamRoutes(app: SidecarApp, ctx: SidecarContext): Promise<void> {
  const limits = streamLimitsOf(ctx.limits);
  const metrics = streamMetrics(ctx.metrics);
  const logger = ctx.logger;
  const feeds = new SessionFeeds({ logger });
  // Other sidecars' delta relays: feeds of their own (ephemeral events only, ClusterPeers).
  const relayFeeds = new SessionFeeds({ logger });
  const sockets = new Set<WsConnection>();
  const sseStreams = new Set<SseStream>();
  const terminals = new TerminalSockets();

  const handshakes = new UpgradeGuard(app.server);

  const stopAll = (): void => {
    handshakes.destroyUnclaimed();
    for (const socket of [...sockets]) socket.close(WS_CLOSE.serviceRestart, STOPPING_REASON);
    for (const stream of [...sseStreams]) stream.close("sidecar_stopping", STOPPING_REASON);
    terminals.stopAll();
  };
  ctx.stopping.addEventListener("abort", stopAll, { once: true });

  /**
   * The session to stream, opened or adopted on demand, or a subagent's child session of an
   * open one; the API's errors as feed errors.
   */
  const openSource = async (sessionId: string, signal: AbortSignal): Promise<FeedSource> => {
    try {
      return await ctx.sessions.source(sessionId, { signal });
    } catch (error) {
      if (error instanceof ApiError) throw new FeedRequestError(error.code, error.message);
      throw error;
    }
  };

  await app.register(websocket, {
    // A message past the bound is refused by `ws` itself (close 1009) before it is held whole.
    options: { maxPayload: limits.maxMessageBytes },
    preClose: (done) => {
      stopAll();
      done();
    },
  });

  // A handshake answered with an HTTP error (the security hook's 401, 403, 421) leaves the
  // socket to whoever holds it: @fastify/websocket frees only the ones that reached its own
  // hook, and a client may keep it open, which would hold the sidecar's stop forever.
  app.addHook("onResponse", async (request) => {
    if (request.headers.upgrade?.toLowerCase() === "websocket") request.raw.socket.destroy();
  });

  /** A relay is served only from a session this sidecar drives now: it never opens one. */
  const openRelaySource = async (sessionId: string): Promise<FeedSource> => {
    // Outside a cluster the security hook refuses a relay's handshake before it comes here.
    if (ctx.cluster === undefined) {
      throw new FeedRequestError(
        "unauthorized",
        "this sidecar is in no cluster: it relays no deltas",
      );
    }
    return ctx.cluster.relaySource(ctx.sessions.peek(sessionId), sessionId);
  };

  // Clients' streams, and other sidecars' delta relays (with the cluster's secret, security.ts).
  app.get("/v1/ws", { websocket: true, config: PEER_ROUTE.relay }, (socket, request) => {
    handshakes.claim(request.raw.socket);
    const relay = request.headers[RELAY_HEADER] !== undefined;
    const connection: WsConnection = new WsConnection(socket as StreamSocket, {
      feeds: relay ? relayFeeds : feeds,
      openSource: relay ? openRelaySource : openSource,
      limits,
      metrics,
      logger,
      onClose: () => sockets.delete(connection),
    });
    sockets.add(connection);
    if (ctx.stopping.aborted) connection.close(WS_CLOSE.serviceRestart, STOPPING_REASON);
  });

  registerTerminalRoute(
    app,
    ctx,
    terminals,
    (request) => handshakes.claim(request.raw.socket),
    "sidecar stopping: the terminal was closed",
  );

  app.get(
    "/v1/sessions/:id/events",
    { schema: { params: EventsParamsSchema, querystring: EventsQuerySchema } },
    async (request, reply) => {
      const header = request.headers["last-event-id"];
      const after =
        typeof header === "string" && header !== ""
          ? seqOf("Last-Event-ID", header)
          : seqOf("after", request.query.after);
      const opening = new AbortController();
      reply.raw.once("close", () => opening.abort());
      const source = await ctx.sessions.source(request.params.id, { signal: opening.signal });
      // A page on an allowed origin reads the stream (the security hook vetted the origin);
      // the response is written raw, past Fastify's hooks, so it says so itself.
      const origin = request.headers.origin;
      if (origin !== undefined) {
        reply.raw.setHeader("access-control-allow-origin", origin);
        reply.raw.setHeader("vary", "origin");
      }
      let stream: SseStream;
      try {
        stream = new SseStream(reply.raw, source, after, {
          feeds,
          limits,
          metrics,
          logger,
          onClose: () => sseStreams.delete(stream),
        });
      } catch (error) {
        if (error instanceof FeedRequestError) throw new ApiError("conflict", error.message);
        throw error;
      }
      sseStreams.add(stream);
      if (ctx.stopping.aborted) stream.close("sidecar_stopping", STOPPING_REASON);
      return reply.hijack();
    },
  );
}

/** A resume point from the client: a seq (0 when absent). */
function seqOf(name: string, value: string | undefined): number {
  if (value === undefined || value === "") return 0;
  const seq = /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(seq)) {
    throw new ApiError(
      "invalid_request",
      `${name} must be a seq (a whole number, 0 or more), not ${JSON.stringify(value.slice(0, 40))}`,
    );
  }
  return seq;
}
