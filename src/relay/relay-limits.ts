/**
 * What the relay allows, each bounded so that one sidecar, one client or one address cannot
 * take the relay from the others. Every limit has a default; `startRelay` and `ocb relay` take
 * any of them.
 */
export interface RelayLimits {
  /** Clients joined to one sidecar at once: a sidecar serves a handful of people. */
  maxClientsPerSidecar: number;
  /** Clients waiting for one sidecar to pick them up: a burst of reconnects, not a queue. */
  maxPendingPerSidecar: number;
  /** How long a client waits for the sidecar's data socket before it is refused. */
  pickupTimeoutMs: number;
  /**
   * The largest frame, bytes (ws `maxPayload`): the tunnel sends frames of at most 64 KiB of
   * plaintext plus its overhead, so anything larger is not ours.
   */
  maxFrameBytes: number;
  /** The largest control message (and acceptance message) before and after registration. */
  maxControlBytes: number;
  /** Bytes per second through one client connection, both ways together. */
  bytesPerSecondPerClient: number;
  /** How far one client connection may run ahead of its rate (a page load's burst). */
  burstBytesPerClient: number;
  /** Bytes per second through one sidecar, all its clients together. */
  bytesPerSecondPerSidecar: number;
  /** The burst of one sidecar's clients together. */
  burstBytesPerSidecar: number;
  /**
   * Bytes the relay holds for a receiver that reads slower than its sender writes; over it the
   * sender is paused, so a slow reader cannot make the relay buffer without bound.
   */
  maxBufferedBytes: number;
  /** New connections (clients and sidecars) from one address per minute. */
  attemptsPerMinutePerIp: number;
  /** Open connections (clients and sidecars' control sockets) from one address. */
  concurrentPerIp: number;
  /** Sidecars registered at once: the relay's memory and file descriptors are finite. */
  maxSidecars: number;
  /** Between pings: under the 30-60 s idle timeouts of common proxies and NATs. */
  pingIntervalMs: number;
  /** Pongs a socket may miss before it counts as gone. */
  maxMissedPongs: number;
  /** A joined connection without any frame for this long is dropped (a forgotten tab). */
  idleTimeoutMs: number;
  /** From the upgrade to a verified registration or acceptance: a slow handshake holds a socket. */
  handshakeTimeoutMs: number;
}

export const DEFAULT_RELAY_LIMITS: Readonly<RelayLimits> = {
  maxClientsPerSidecar: 32,
  maxPendingPerSidecar: 8,
  pickupTimeoutMs: 10_000,
  maxFrameBytes: 80 * 1024,
  maxControlBytes: 4 * 1024,
  bytesPerSecondPerClient: 2 * 1024 * 1024,
  burstBytesPerClient: 8 * 1024 * 1024,
  bytesPerSecondPerSidecar: 8 * 1024 * 1024,
  burstBytesPerSidecar: 32 * 1024 * 1024,
  maxBufferedBytes: 4 * 1024 * 1024,
  attemptsPerMinutePerIp: 30,
  concurrentPerIp: 20,
  maxSidecars: 1000,
  pingIntervalMs: 25_000,
  maxMissedPongs: 2,
  idleTimeoutMs: 10 * 60_000,
  handshakeTimeoutMs: 10_000,
};

/** The defaults with `overrides` on top, each checked to be a positive number. */
export function relayLimitsOf(overrides: Partial<RelayLimits> = {}): RelayLimits {
  const limits = { ...DEFAULT_RELAY_LIMITS, ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    if (!(Number.isFinite(value) && value > 0)) {
      throw new RangeError(`relay limit ${name} must be a positive number, got ${value}`);
    }
  }
  return limits;
}
