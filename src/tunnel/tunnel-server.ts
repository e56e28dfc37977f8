/**
 * The server half of the tunnel (Node): every request and WebSocket the client opens through
 * the channel becomes a request or a socket to `target` (the sidecar), with the headers the
 * server side sets in place of the client's. When the channel closes, or `close()` or the
 * signal ends the tunnel, everything upstream is closed with it.
 */
import { Agent } from "node:http";
import { FrameLink, TunnelCloseCode } from "./frame-link.js";
import type { MessageChannel } from "./message-channel.js";
import { ServerStreams } from "./server-streams.js";
import { type TunnelLimits, tunnelLimitsOf } from "./tunnel-limits.js";
import { UpstreamRequest } from "./upstream-request.js";
import { UpstreamSocket } from "./upstream-socket.js";
import {
  headerRewriter,
  type TunnelStreamError,
  type TunnelTarget,
  type UpstreamContext,
} from "./upstream-target.js";

export type { TunnelStreamError, TunnelTarget } from "./upstream-target.js";

export interface ServeTunnelOptions {
  /** Where requests and WebSockets go. */
  target: TunnelTarget;
  /**
   * Headers set on every request and upgrade, replacing the client's own value (the target's
   * `authorization`, a `host`): the credentials stay on this side of the tunnel.
   */
  setHeaders?: Readonly<Record<string, string>>;
  /** Headers of the client's never passed on (any case), e.g. `origin`, `cookie`. */
  dropHeaders?: readonly string[];
  /** Bounds of this side (the client side has its own). */
  limits?: Partial<TunnelLimits>;
  /** Ends the tunnel as `close()` does. */
  signal?: AbortSignal;
  /** An upstream request or socket failed (the client got a 502, a RESET or a 1006). */
  onStreamError?: (error: TunnelStreamError) => void;
}

/** The server end of a tunnel. */
export interface TunnelServer {
  /** Settles once the channel closed and everything upstream was closed. */
  readonly closed: Promise<void>;
  /** Closes the channel (1001) and everything upstream. */
  close(): void;
  /** Requests and WebSockets open now. */
  readonly openStreams: number;
}

/** Serves the client half on the other end of `channel`. */
export function serveTunnel(channel: MessageChannel, options: ServeTunnelOptions): TunnelServer {
  const agent = new Agent({ keepAlive: true });
  const context: UpstreamContext = {
    target: options.target,
    agent,
    headersFor: headerRewriter(options.setHeaders ?? {}, options.dropHeaders ?? []),
    reportError: (error) => options.onStreamError?.(error),
  };
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const onAbort = (): void => link.close(TunnelCloseCode.GOING_AWAY, "the tunnel server closed");
  const streams = new ServerStreams(
    tunnelLimitsOf(options.limits),
    {
      request: (host, id, head) => new UpstreamRequest(context, host, id, head),
      webSocket: (host, id, head) => new UpstreamSocket(context, host, id, head),
    },
    () => {
      options.signal?.removeEventListener("abort", onAbort);
      // Idle keep-alive connections too: nothing of this tunnel stays open upstream.
      agent.destroy();
      resolveClosed();
    },
  );
  const link = new FrameLink(channel, streams);
  streams.attach(link);
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });
  return {
    closed,
    close: onAbort,
    get openStreams() {
      return streams.openStreams;
    },
  };
}
