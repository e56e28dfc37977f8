/**
 * The close codes the relay sends, one per kind of refusal, so that a client or a sidecar can
 * tell a limit (retry later) from a refusal (do not retry) without parsing reasons.
 */
export const RELAY_CLOSE = {
  /** A newer control connection of the same sidecar took over. */
  replaced: 4001,
  /**
   * The sidecar is not available: unknown, offline, or it did not pick the connection up in
   * time. One code for all three, so that a client learns nothing about which ids exist.
   */
  notAvailable: 4004,
  /** A limit: too many connections, attempts or bytes. Retry later. */
  limit: 4029,
  /** A registration or a data socket's acceptance that did not verify, or came too late. */
  badRegistration: 4401,
  /** The relay stops. */
  goingAway: 1001,
  /** No frame for too long, or pongs missed. */
  idle: 4008,
  /** A text frame where only binary frames travel, or a malformed control message. */
  unsupported: 1003,
  /** A frame over the size limit (ws closes with it itself). */
  tooBig: 1009,
} as const;

/**
 * The code to pass on to the other side of a joined pair: the peer's own when it may be sent
 * (1000, 1001, 3000-4999), else 1001; 1005 and 1006 only say that no code came.
 */
export function passableCloseCode(code: number): number {
  if (code === 1000 || code === 1001 || (code >= 3000 && code <= 4999)) return code;
  return RELAY_CLOSE.goingAway;
}
