/**
 * The client half of the tunnel, isomorphic (browsers and Node: no Buffer, no node:*): a
 * `fetch` and a `WebSocket` that go through one `MessageChannel` to `serveTunnel` on the
 * other end, to hand to BridgeClient or the web chat in place of the platform's own.
 *
 * Only a URL's path and query travel: its origin (whatever base URL the caller was given) is
 * ignored, the server side decides where requests go. Redirects are not followed (the answer
 * is returned as is), `Response.url` is empty, and hop-by-hop headers are not carried.
 */
import { ClientStreams } from "./client-streams.js";
import { FrameLink, type LinkClosed, TunnelCloseCode } from "./frame-link.js";
import type { MessageChannel } from "./message-channel.js";
import { type TunnelFetch, tunnelFetchOf } from "./tunnel-fetch.js";
import { type TunnelLimits, tunnelLimitsOf } from "./tunnel-limits.js";
import { type TunnelWebSocketConstructor, tunnelWebSocketClassOf } from "./tunnel-websocket.js";

export interface TunnelClientOptions {
  /** Bounds of this side (the server side has its own). */
  limits?: Partial<TunnelLimits>;
}

/** The client end of a tunnel. */
export interface TunnelClient {
  /** Requests through the tunnel; rejects as fetch does (TypeError, or the abort reason). */
  readonly fetch: TunnelFetch;
  /** WebSockets through the tunnel. */
  readonly WebSocket: TunnelWebSocketConstructor;
  /** Closes the channel: pending requests reject, open bodies error, sockets close 1006. */
  close(reason?: string): void;
  /** Settles when the channel closed, by either side, with its code and reason. */
  readonly closed: Promise<LinkClosed>;
}

/** Starts the client half of a tunnel on `channel`. */
export function openTunnelClient(
  channel: MessageChannel,
  options: TunnelClientOptions = {},
): TunnelClient {
  const streams = new ClientStreams(tunnelLimitsOf(options.limits));
  const link = new FrameLink(channel, streams);
  streams.attach(link);
  const closed = new Promise<LinkClosed>((resolve) => streams.onClosed(resolve));
  return {
    fetch: tunnelFetchOf(streams),
    WebSocket: tunnelWebSocketClassOf(streams),
    close: (reason = "the client closed the tunnel") => link.close(TunnelCloseCode.NORMAL, reason),
    closed,
  };
}
