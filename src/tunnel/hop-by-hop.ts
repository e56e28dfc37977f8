/**
 * Headers that describe one connection, not the request or response: they are not carried
 * through the tunnel, since each hop (the caller's fetch, the channel, the server side's own
 * connection to the target) has its own. Both sides drop them, so neither trusts the other to.
 */
import type { HeaderPair } from "./tunnel-frames.js";

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "host",
  "proxy-authorization",
  "proxy-authenticate",
  "proxy-connection",
]);

/** Whether a header (any case) stays with its hop. */
export function isHopByHop(name: string): boolean {
  const lower = name.toLowerCase();
  return HOP_BY_HOP.has(lower) || lower.startsWith("proxy-");
}

/** `headers` without the hop-by-hop ones, and without those `connection` itself names. */
export function endToEndHeaders(headers: readonly HeaderPair[]): HeaderPair[] {
  const named = new Set<string>();
  for (const [name, value] of headers) {
    if (name.toLowerCase() !== "connection") continue;
    for (const token of value.split(",")) named.add(token.trim().toLowerCase());
  }
  return headers.filter(([name]) => !isHopByHop(name) && !named.has(name.toLowerCase()));
}
