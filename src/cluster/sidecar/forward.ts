/**
 * Commands for a session another sidecar of the cluster drives (send, interrupt, replies to
 * asks, a model switch, cancelling a queued input, kill) are forwarded to that driver: the
 * same request, its body's bytes as received (JSON or multipart) with their content type,
 * authenticated with the cluster's secret (never the client's token) and marked
 * `x-ocb-forwarded`: such a request is accepted only with that secret, only on these routes
 * (`PEER_ROUTE`, security.ts). The driver's answer (status, body, and `idempotent-replayed`,
 * `retry-after`) is the client's. A forwarded command is never forwarded again: a sidecar that
 * receives one for a session it does not drive answers 409 `not_driver`, and the sender looks
 * the driver up again (driver-delivery.ts).
 *
 * It runs as the routes' `preParsing` hook (`forwardedRoute`, cluster-peers.ts), before the
 * body is read: a command for a session this sidecar drives (or can take: nobody drives it)
 * goes on to its route untouched.
 */
import type { Readable } from "node:stream";
import type { FastifyReply, FastifyRequest } from "fastify";
import { callSignal } from "../../sidecar/call-bounds.js";
import type { ForwardOptions, PreParsingHook } from "../../sidecar/cluster-peers.js";
import type { SidecarContext } from "../../sidecar/context.js";
import { ApiError } from "../../sidecar/errors.js";
import { FORWARDED_HEADER } from "../../sidecar/peer-routes.js";
import type { SidecarApp } from "../../sidecar/sidecar-app.js";
import type { ClusterSessions } from "./cluster-sessions.js";
import { type Command, deliverToDriver } from "./driver-delivery.js";
import type { PeerAnswer } from "./peer-call.js";

/** The driver's headers a client gets with its answer (the rest are the connection's). */
const RELAYED_HEADERS = ["content-type", "idempotent-replayed", "retry-after"] as const;

/** Slack over the driver's own bound on a call (`requestTimeoutMs`) for its answer to come. */
const ANSWER_SLACK_MS = 10_000;

/** The `preParsing` hook of a route whose commands go to the session's driver. */
export function forwardToDriver(
  ctx: SidecarContext,
  app: SidecarApp,
  options: ForwardOptions,
  cluster: ClusterSessions,
): PreParsingHook {
  return async (request, reply, payload) => {
    // Never forwarded twice: a forwarded command is this sidecar's to run, or not_driver.
    if (request.headers[FORWARDED_HEADER] !== undefined) return payload;
    const sessionId = sessionIdOf(request);
    if (ctx.sessions.peek(sessionId) !== undefined) return payload;
    const signal = callSignal(ctx, ctx.limits.requestTimeoutMs + ANSWER_SLACK_MS);
    const driveHere = () => drivesHere(ctx, sessionId, signal);
    if (await driveHere()) return payload;
    const contentType = request.headers["content-type"];
    const body = await readBody(payload, request, bodyLimit(ctx, contentType));
    const command: Command = {
      sessionId,
      method: request.method,
      url: request.url,
      headers: contentType === undefined ? {} : { "content-type": contentType },
      body,
      repeatable: options.repeatable?.(body, contentType) ?? true,
    };
    const answer = await deliverToDriver(command, {
      cluster,
      driveHere,
      runHere: (taken) => runHere(app, ctx, request, taken, cluster.trust.secret),
      signal,
    });
    relay(reply, answer);
    await reply;
    return payload;
  };
}

function sessionIdOf(request: FastifyRequest): string {
  const params = request.params;
  const id =
    typeof params === "object" && params !== null && "id" in params ? params.id : undefined;
  if (typeof id !== "string") throw new Error(`the route ${request.url} names no session`);
  return id;
}

/** Opens the session here (as its route would); false when another sidecar drives it. */
async function drivesHere(
  ctx: SidecarContext,
  sessionId: string,
  signal: AbortSignal,
): Promise<boolean> {
  try {
    await ctx.sessions.open(sessionId, { signal });
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.code === "not_driver") return false;
    throw error;
  }
}

/** The body's bytes as received, within the route's limit. */
async function readBody(payload: Readable, request: FastifyRequest, limit: number) {
  const declared = Number(request.headers["content-length"] ?? 0);
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of payload) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += bytes.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}

function bodyLimit(ctx: SidecarContext, contentType: string | undefined): number {
  const { jsonBodyBytes, multipartBodyBytes } = ctx.limits;
  // A multipart body's files, plus its fields and part headers (each field within a JSON body's size).
  if (contentType?.startsWith("multipart/") === true) return multipartBodyBytes + jsonBodyBytes;
  return jsonBodyBytes;
}

function tooLarge(limit: number): ApiError {
  return new ApiError(
    "too_large",
    `the body is over ${limit} bytes; send less (see the limits in docs/sidecar.md)`,
  );
}

/**
 * The command run on this sidecar, which took the session over while forwarding it: its body
 * was read already, so it goes through the app again (marked: it is not forwarded again).
 */
async function runHere(
  app: SidecarApp,
  ctx: SidecarContext,
  request: FastifyRequest,
  command: Command,
  clusterSecret: string,
): Promise<PeerAnswer> {
  const answer = await app.inject({
    method: request.method as "POST",
    url: command.url,
    headers: {
      ...command.headers,
      host: request.headers.host ?? `127.0.0.1:${ctx.address.port}`,
      authorization: `Bearer ${clusterSecret}`,
      [FORWARDED_HEADER]: "self",
    },
    payload: command.body,
  });
  return { status: answer.statusCode, headers: answer.headers, body: answer.rawPayload };
}

function relay(reply: FastifyReply, answer: PeerAnswer): void {
  void reply.code(answer.status);
  for (const name of RELAYED_HEADERS) {
    const value = answer.headers[name];
    if (value !== undefined) void reply.header(name, value);
  }
  void reply.send(answer.body);
}
