/**
 * Where the server side sends what comes through the tunnel, and what it changes on the way:
 * the headers it sets (the target's own credentials, which the client never holds) and drops.
 */
import type { Agent } from "node:http";
import { endToEndHeaders } from "./hop-by-hop.js";
import type { HeaderPair } from "./tunnel-frames.js";

/** The HTTP server requests go to: a TCP address or a Unix socket. */
export type TunnelTarget = { host: string; port: number } | { socketPath: string };

/** An upstream request or socket that failed (reported, never thrown). */
export interface TunnelStreamError {
  streamId: number;
  kind: "request" | "websocket";
  /** The path and query the client asked for. */
  path: string;
  error: Error;
}

/** What the server side's streams share. */
export interface UpstreamContext {
  readonly target: TunnelTarget;
  readonly agent: Agent;
  /** The headers to send upstream for a client's. */
  headersFor(client: readonly HeaderPair[], webSocket: boolean): HeaderPair[];
  reportError(error: TunnelStreamError): void;
}

/**
 * The client's headers, hop-by-hop ones, `drop` and (for a WebSocket) the handshake's own
 * removed, then `set` on top: a client cannot send its own value of a header the server sets.
 */
export function headerRewriter(
  set: Readonly<Record<string, string>>,
  drop: readonly string[],
): (client: readonly HeaderPair[], webSocket: boolean) => HeaderPair[] {
  const setPairs = Object.entries(set);
  const removed = new Set([...drop, ...Object.keys(set)].map((name) => name.toLowerCase()));
  return (client, webSocket) => [
    ...endToEndHeaders(client).filter(([name]) => {
      const lower = name.toLowerCase();
      return !removed.has(lower) && !(webSocket && lower.startsWith("sec-websocket-"));
    }),
    ...setPairs,
  ];
}

/**
 * Headers as Node's request options take them (an object: Node 20's array form is not usable
 * for requests), repeated names joined as HTTP allows: cookies with "; ", the rest with ", ".
 */
export function headerRecordOf(pairs: readonly HeaderPair[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of pairs) {
    const lower = name.toLowerCase();
    const existing = record[lower];
    const separator = lower === "cookie" ? "; " : ", ";
    record[lower] = existing === undefined ? value : `${existing}${separator}${value}`;
  }
  return record;
}

/** Node's raw header list (`[name, value, name, value…]`) as pairs. */
export function pairsOfRawHeaders(raw: readonly string[]): HeaderPair[] {
  const pairs: HeaderPair[] = [];
  for (let index = 0; index + 1 < raw.length; index += 2) {
    pairs.push([raw[index] as string, raw[index + 1] as string]);
  }
  return pairs;
}
