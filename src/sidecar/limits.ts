/** The sidecar's bounds, with their defaults (see docs/sidecar.md, "Limits"). */
export interface SidecarLimits {
  /** Largest JSON body (default 1 MiB). */
  jsonBodyBytes: number;
  /** Largest multipart body, all files together (default 20 MiB). */
  multipartBodyBytes: number;
  /** Largest single attachment, decoded (default 10 MiB, the library's). */
  attachmentBytes: number;
  /** Most attachments in one input (default 16). */
  attachmentsPerInput: number;
  /**
   * Bytes of sent images kept in memory to show again (a reload, a second tab; default
   * 64 MiB, least recently used dropped first: see `sent-images.ts`).
   */
  sentImageBytes: number;
  /** How long a ticket stays valid (default 30 s). */
  ticketTtlMs: number;
  /** Most tickets outstanding at once (default 1000; older ones are dropped first). */
  maxTickets: number;
  /** How long an idempotency key is remembered (default 24 h). */
  idempotencyTtlMs: number;
  /** Most idempotency keys remembered, over all sessions (default 10 000; oldest dropped first). */
  maxIdempotencyKeys: number;
  /**
   * How long receiving one request (its headers and body) may take (default 120 s): a client
   * that sends slower is answered 408 `request_timeout` and its connection closed.
   */
  receiveTimeoutMs: number;
  /**
   * Connections (HTTP keep-alive and WebSocket) one client address may hold open at once
   * (default 256); past it a request is answered 429 `too_many_connections`.
   */
  connectionsPerClient: number;
  /** How long `/healthz` reuses OpenCode's answer (default 1 s): a flood of checks asks it once. */
  healthCacheMs: number;
  /** Bound on one call into the bridge from a request (default 60 s). */
  requestTimeoutMs: number;
  /**
   * How long `close()` lets answers still being sent finish (a client that stopped reading a
   * large one) before it cuts their connections (default 5 s).
   */
  closeGraceMs: number;
  // The streams (see docs/sidecar-streams.md):
  /** Unsent bytes on a stream client's connection past which ephemeral events are skipped (4 MiB). */
  streamDropEphemeralBytes: number;
  /** Unsent bytes past which a stream client is disconnected (WebSocket 4008; default 16 MiB). */
  streamDisconnectBytes: number;
  /** How often streams send a heartbeat: a WebSocket ping, an SSE comment (default 15 s). */
  streamHeartbeatMs: number;
  /** A WebSocket silent this long, pongs included, is terminated (default 30 s). */
  streamHeartbeatTimeoutMs: number;
  /** The largest WebSocket message a client may send (default 64 KiB; larger closes 1009). */
  wsMessageBytes: number;
  /** Session subscriptions one WebSocket may hold (default 256). */
  wsSubscriptions: number;
  /** Invalid messages a WebSocket may send per minute before it is closed 1008 (default 20). */
  wsInvalidMessagesPerMinute: number;
}

export const DEFAULT_LIMITS: SidecarLimits = {
  jsonBodyBytes: 1024 * 1024,
  multipartBodyBytes: 20 * 1024 * 1024,
  attachmentBytes: 10 * 1024 * 1024,
  attachmentsPerInput: 16,
  sentImageBytes: 64 * 1024 * 1024,
  ticketTtlMs: 30_000,
  maxTickets: 1000,
  idempotencyTtlMs: 24 * 60 * 60 * 1000,
  maxIdempotencyKeys: 10_000,
  receiveTimeoutMs: 120_000,
  connectionsPerClient: 256,
  healthCacheMs: 1_000,
  requestTimeoutMs: 60_000,
  closeGraceMs: 5_000,
  streamDropEphemeralBytes: 4 * 1024 * 1024,
  streamDisconnectBytes: 16 * 1024 * 1024,
  streamHeartbeatMs: 15_000,
  streamHeartbeatTimeoutMs: 30_000,
  wsMessageBytes: 64 * 1024,
  wsSubscriptions: 256,
  wsInvalidMessagesPerMinute: 20,
};

/** The defaults with `given` over them; each must be a positive whole number. */
export function resolveLimits(given: Partial<SidecarLimits> | undefined): SidecarLimits {
  const limits = { ...DEFAULT_LIMITS, ...given };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new RangeError(`limits.${name} must be a positive whole number, got ${String(value)}`);
    }
  }
  return limits;
}
