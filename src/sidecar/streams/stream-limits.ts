/** The bounds of the sidecar's streams, as the streams use them (from the sidecar's limits). */
import type { SidecarLimits } from "../limits.js";
import type { BacklogBounds } from "./slow-consumer.js";

export interface StreamLimits {
  /** Slow-consumer bounds on the bytes waiting on a connection. */
  backlog: BacklogBounds;
  /** How often the server pings a WebSocket (and writes an SSE comment), ms. */
  heartbeatMs: number;
  /** A WebSocket that sends nothing, not even a pong, for this long is terminated. */
  heartbeatTimeoutMs: number;
  /** The largest client message accepted, bytes; larger closes with 1009. */
  maxMessageBytes: number;
  /** Subscriptions one WebSocket may hold at once. */
  maxSubscriptions: number;
  /** Invalid messages tolerated within `invalidWindowMs` before the socket is closed (1008). */
  maxInvalidMessages: number;
  invalidWindowMs: number;
}

/** The stream bounds within the sidecar's limits. */
export function streamLimitsOf(limits: SidecarLimits): StreamLimits {
  return {
    backlog: {
      dropEphemeralAbove: limits.streamDropEphemeralBytes,
      disconnectAbove: limits.streamDisconnectBytes,
    },
    heartbeatMs: limits.streamHeartbeatMs,
    heartbeatTimeoutMs: limits.streamHeartbeatTimeoutMs,
    maxMessageBytes: limits.wsMessageBytes,
    maxSubscriptions: limits.wsSubscriptions,
    maxInvalidMessages: limits.wsInvalidMessagesPerMinute,
    invalidWindowMs: 60_000,
  };
}
