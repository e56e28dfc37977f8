/** The bounds of the sidecar's streams, with their defaults (all overridable for tests). */
import { type BacklogBounds, DEFAULT_BACKLOG_BOUNDS } from "./slow-consumer.js";

export interface StreamLimits {
  /** Slow-consumer bounds on the bytes waiting on a connection. */
  backlog: BacklogBounds;
  /** How often the server pings a WebSocket (and writes an SSE comment), ms (default 15 s). */
  heartbeatMs: number;
  /** A WebSocket that sends nothing, not even a pong, for this long is terminated (default 30 s). */
  heartbeatTimeoutMs: number;
  /** The largest client message accepted, bytes (default 64 KiB); larger closes with 1009. */
  maxMessageBytes: number;
  /** Subscriptions one WebSocket may hold at once (default 256). */
  maxSubscriptions: number;
  /** Invalid messages tolerated within `invalidWindowMs` before the socket is closed (1008). */
  maxInvalidMessages: number;
  invalidWindowMs: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  backlog: DEFAULT_BACKLOG_BOUNDS,
  heartbeatMs: 15_000,
  heartbeatTimeoutMs: 30_000,
  maxMessageBytes: 64 * 1024,
  maxSubscriptions: 256,
  maxInvalidMessages: 20,
  invalidWindowMs: 60_000,
};

/** The defaults with `overrides` applied (the backlog bounds merged one by one). */
export function streamLimits(overrides: Partial<StreamLimits> = {}): StreamLimits {
  return {
    ...DEFAULT_STREAM_LIMITS,
    ...overrides,
    backlog: { ...DEFAULT_STREAM_LIMITS.backlog, ...overrides.backlog },
  };
}
