/**
 * The checks every request passes before anything else runs: the `Host` is the sidecar's own
 * (DNS rebinding), an `Origin` is its own or an allowed one (cross-site requests from a page the
 * user visits), and the token is there (or, on a stream handshake, a ticket; `/healthz` and the
 * web chat's page and assets need none, but their Host and Origin are checked all the same: a
 * rebinding page must not probe the health check, which asks OpenCode each time).
 * OpenCode's own unauthenticated server was a remote code execution: nothing is open by default.
 *
 * Calls from the other sidecars of a cluster (a forwarded command, a delta relay: marked by
 * their header) are told apart from clients': they need the cluster's secret, which no client
 * token replaces, and only reach the routes made for them (`PEER_ROUTE`); the secret is no
 * client token anywhere else.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import { hostname } from "node:os";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { SidecarAddress, SidecarContext } from "./context.js";
import { answerPreflight, corsHeaders } from "./cors.js";
import { ApiError } from "./errors.js";
import { FORWARDED_HEADER, RELAY_HEADER } from "./peer-routes.js";
import { WEB_ROUTES } from "./web/routes.js";

/** Routes that take no token: the health check says only whether the sidecar and OpenCode are up. */
export const PUBLIC_ROUTES: ReadonlySet<string> = new Set(["/healthz"]);

/**
 * The stream handshakes, where a browser cannot set `Authorization` (WebSocket) or may not
 * (EventSource): they take `?ticket=` from `POST /v1/tickets` instead.
 */
export const TICKET_ROUTES: ReadonlySet<string> = new Set([
  "/v1/ws",
  "/v1/sessions/:id/events",
  "/v1/sessions/:id/terminal",
]);

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];
const WILDCARDS = new Set(["0.0.0.0", "::", "[::]"]);

/**
 * The `onRequest` hook: answers 503 while the sidecar stops, else 421, 403 or 401 with the
 * error body, or lets the request on.
 */
export function securityHook(ctx: SidecarContext) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (ctx.stopping.aborted) {
      const stopping = new ApiError(
        "unavailable",
        "the sidecar is stopping; try again once it is back",
      );
      await reply.code(stopping.status).header("connection", "close").send(stopping.body());
      return;
    }
    const route = request.routeOptions.url;
    const origin = request.headers.origin;
    const allowed = origin !== undefined && isAllowedOrigin(origin, ctx);
    // Host first: a preflight from an allowed page through a rebound name is still refused.
    if (allowed && isAcceptedHost(request.headers.host ?? "", ctx)) {
      if (await answerPreflight(request, reply, origin)) return;
      corsHeaders(reply, origin);
    }
    const problem = check(ctx, request, route);
    if (problem === undefined) return;
    await reply.code(problem.status).send(problem.body());
  };
}

function check(
  ctx: SidecarContext,
  request: FastifyRequest,
  route: string | undefined,
): ApiError | undefined {
  const host = request.headers.host;
  if (host === undefined || !isAcceptedHost(host, ctx)) {
    return new ApiError(
      "bad_host",
      `the Host header ${JSON.stringify(host ?? "")} is not this sidecar's; ` +
        (ctx.address.socketPath === undefined
          ? `call it as http://127.0.0.1:${ctx.address.port} (or by the host it was started with); `
          : // Not the socket's path: whoever asks may be a device through a relay.
            `on its Unix socket, call it with Host: ${ctx.address.host}; `) +
        "behind a proxy, start it with --allow-host for the name the proxy passes",
    );
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !isAllowedOrigin(origin, ctx)) {
    return new ApiError(
      "bad_origin",
      `requests from the origin ${JSON.stringify(origin)} are not allowed; ` +
        "start the sidecar with --allow-origin for it",
    );
  }
  // The health check and the chat's page and assets hold no secret: the Host and Origin checks
  // above suffice.
  if (route !== undefined && (PUBLIC_ROUTES.has(route) || WEB_ROUTES.has(route))) return undefined;
  if (isPeerCall(request)) return peerCallProblem(ctx, request);
  // The cluster secret differs from the token (createSidecarContext): it is no client token.
  if (hasToken(request.headers.authorization, ctx.token)) return undefined;
  const ticket = ticketOf(request);
  if (ticket !== undefined && route !== undefined && TICKET_ROUTES.has(route)) {
    if (ctx.tickets.consume(ticket)) return undefined;
    return new ApiError(
      "unauthorized",
      "the ticket is unknown, used or expired; get a new one with POST /v1/tickets (each works once, within 30 s)",
    );
  }
  return new ApiError(
    "unauthorized",
    request.headers.authorization === undefined
      ? "no token: send `Authorization: Bearer <token>` (ocb serve prints the token, or set OCB_TOKEN)"
      : "wrong token: send `Authorization: Bearer <token>` with the token ocb serve printed",
  );
}

/** A request marked as another sidecar's: a forwarded command, or a delta relay's handshake. */
function isPeerCall(request: FastifyRequest): boolean {
  return peerMark(request) !== undefined;
}

function peerMark(request: FastifyRequest): string | undefined {
  const marks = [FORWARDED_HEADER, RELAY_HEADER].filter(
    (name) => request.headers[name] !== undefined,
  );
  // Both marks at once is no call a sidecar makes: refused as the wrong mark.
  return marks.length === 0 ? undefined : marks.join(", ");
}

/** Why a call marked as another sidecar's is refused, if it is. */
function peerCallProblem(ctx: SidecarContext, request: FastifyRequest): ApiError | undefined {
  const cluster = ctx.cluster;
  if (cluster === undefined) {
    return new ApiError(
      "unauthorized",
      `this sidecar is in no cluster: requests with ${FORWARDED_HEADER} or ${RELAY_HEADER} ` +
        "(calls between sidecars) are refused; a client sends neither header",
    );
  }
  const taken = request.routeOptions.config.peer;
  if (taken === undefined || taken !== peerMark(request)) {
    return new ApiError(
      "unauthorized",
      `${request.method} ${request.routeOptions.url ?? request.url} takes no calls from other ` +
        `sidecars: send it without ${FORWARDED_HEADER} or ${RELAY_HEADER}, with a client's token`,
    );
  }
  if (hasToken(request.headers.authorization, cluster.secret)) return undefined;
  return new ApiError(
    "unauthorized",
    "a call from another sidecar of the cluster needs `Authorization: Bearer <cluster secret>` " +
      "(OCB_CLUSTER_SECRET, the same on every sidecar of the cluster); a client's token is not " +
      "accepted for it",
  );
}

/** The `Authorization` header carries `token`, compared in constant time. */
export function hasToken(header: string | undefined, token: string): boolean {
  if (header === undefined) return false;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (match?.[1] === undefined) return false;
  // Digests first: timingSafeEqual wants equal lengths, and a length check would leak one.
  return timingSafeEqual(digest(match[1]), digest(token));
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

function ticketOf(request: FastifyRequest): string | undefined {
  const query = request.query;
  if (typeof query !== "object" || query === null || !("ticket" in query)) return undefined;
  const ticket = query.ticket;
  return typeof ticket === "string" && ticket !== "" ? ticket : undefined;
}

/** Its own host, or one the operator allowed (the name a reverse proxy passes on). */
function isAcceptedHost(header: string, ctx: SidecarContext): boolean {
  if (isOwnHost(header, ctx.address)) return true;
  const host = header.toLowerCase();
  return (ctx.allowHosts ?? []).some((allowed) => {
    const name = allowed.toLowerCase();
    // "chat.example" allows it on any port; "chat.example:443" on that one only.
    return host === name || (splitHost(name) === undefined && splitHost(host)?.name === name);
  });
}

/** The names the sidecar answers to: loopback ones, the host it was bound to, and (bound to all) its IPs and host name. */
export function isOwnHost(header: string, address: SidecarAddress): boolean {
  // On a Unix socket no browser reaches it (no rebinding to fear), and clients send this.
  if (address.socketPath !== undefined) return header.toLowerCase() === address.host;
  const parsed = splitHost(header.toLowerCase());
  if (parsed === undefined || parsed.port !== address.port) return false;
  const name = parsed.name;
  if (LOOPBACK_NAMES.includes(name)) return true;
  const bound = bracketed(address.host.toLowerCase());
  if (WILDCARDS.has(bound)) {
    // Bound to every interface (a token is then required): any IP literal of this machine's
    // reach, or its host name. A DNS name pointing here (rebinding) is still refused.
    return isIP(name.replace(/^\[|\]$/g, "")) !== 0 || name === hostname().toLowerCase();
  }
  return name === bound;
}

/** The sidecar's own origins (`http(s)://<own host>:<port>`) and the allowed ones. */
export function isAllowedOrigin(origin: string, ctx: SidecarContext): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // `null` (a sandboxed page, a file) and garbage
  }
  if (ctx.allowOrigins.some((allowed) => sameOrigin(allowed, url.origin))) return true;
  const protocol = ctx.address.secure === true ? "https:" : "http:";
  const port = url.port === "" ? (protocol === "https:" ? "443" : "80") : url.port;
  return url.protocol === protocol && isOwnHost(`${url.hostname}:${port}`, ctx.address);
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

function splitHost(host: string): { name: string; port: number } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(host);
  if (match === null) return undefined;
  return { name: match[1] ?? "", port: Number(match[2]) };
}

function bracketed(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/** Whether binding to `host` exposes the sidecar beyond this machine. */
export { isLoopbackHost } from "../util/loopback-host.js";
