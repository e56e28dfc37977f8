/**
 * CORS for the `--allow-origin` origins: a browser page there sends a preflight (`OPTIONS`, no
 * token) before any request with `Authorization`, and reads an answer only when it names its
 * origin. Other origins get no CORS headers (and a 403 from the security hook).
 */
import type { FastifyReply, FastifyRequest } from "fastify";

const ALLOWED_METHODS = "GET, POST, PATCH, DELETE";
const ALLOWED_HEADERS = "authorization, content-type, last-event-id";
const EXPOSED_HEADERS = "idempotent-replayed";

/** True when the request is a preflight; it has then been answered (204 with the CORS headers). */
export async function answerPreflight(
  request: FastifyRequest,
  reply: FastifyReply,
  origin: string,
): Promise<boolean> {
  if (
    request.method !== "OPTIONS" ||
    request.headers["access-control-request-method"] === undefined
  ) {
    return false;
  }
  await reply
    .code(204)
    .headers({
      "access-control-allow-origin": origin,
      "access-control-allow-methods": ALLOWED_METHODS,
      "access-control-allow-headers": ALLOWED_HEADERS,
      "access-control-max-age": "600",
      vary: "Origin",
    })
    .send();
  return true;
}

/** The headers that let the page at `origin` read the answer. */
export function corsHeaders(reply: FastifyReply, origin: string): void {
  void reply.headers({
    "access-control-allow-origin": origin,
    "access-control-expose-headers": EXPOSED_HEADERS,
    vary: "Origin",
  });
}
