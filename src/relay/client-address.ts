/**
 * The address a connection comes from, for the per-address limits and the log. Behind a
 * reverse proxy every TCP peer is the proxy; a proxy named as trusted says who its client was
 * in the last `X-Forwarded-For` entry (the one it appended itself: entries before it are
 * whatever the client claimed). Anyone else's header is ignored, or a client could pick its
 * own address and escape its limits.
 */
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";

export function clientAddressOf(
  request: IncomingMessage,
  trustedProxies: ReadonlySet<string>,
): string {
  const peer = plainAddress(request.socket.remoteAddress ?? "unknown");
  if (!trustedProxies.has(peer)) return peer;
  const header = request.headers["x-forwarded-for"];
  const forwarded = (Array.isArray(header) ? header.join(",") : (header ?? "")).split(",");
  const last = plainAddress(forwarded[forwarded.length - 1]?.trim() ?? "");
  return isIP(last) === 0 ? peer : last;
}

/** An IPv4 address mapped into IPv6 (`::ffff:1.2.3.4`) as the IPv4 address it is. */
export function plainAddress(address: string): string {
  return address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}
