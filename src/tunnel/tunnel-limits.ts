/**
 * The tunnel's bounds. The window is part of the protocol (both sides must agree on it, so it
 * is a constant); the rest are each side's own choice, with defaults.
 */
import { UsageError } from "../errors.js";

/**
 * Bytes of data (request or response body, WebSocket messages) a side may send on one stream
 * before the receiver grants more with WINDOW frames: the memory one stream can make its
 * receiver hold.
 */
export const INITIAL_WINDOW_BYTES = 256 * 1024;

/** The receiver grants consumed bytes back once this many have gathered (fewer WINDOW frames). */
export const WINDOW_GRANT_THRESHOLD_BYTES = 64 * 1024;

/** What one side of a tunnel allows. */
export interface TunnelLimits {
  /** Requests and WebSockets open at once; beyond it a new one fails at once. */
  maxConcurrentStreams: number;
  /** The largest WebSocket message put together from its fragments. */
  maxWebSocketMessageBytes: number;
}

export const DEFAULT_TUNNEL_LIMITS: Readonly<TunnelLimits> = {
  maxConcurrentStreams: 256,
  maxWebSocketMessageBytes: 16 * 1024 * 1024,
};

/** The defaults with `overrides` on top, each checked to be a positive integer. */
export function tunnelLimitsOf(overrides: Partial<TunnelLimits> = {}): TunnelLimits {
  const limits = { ...DEFAULT_TUNNEL_LIMITS, ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    if (!(Number.isInteger(value) && value > 0)) {
      throw new UsageError(`tunnel limit ${name} must be a positive integer, got ${value}`);
    }
  }
  return limits;
}
