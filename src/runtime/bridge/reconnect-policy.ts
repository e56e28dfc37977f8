/**
 * How a bridge's event streams wait between reconnect attempts while their server is away
 * (`BridgeOptions.reconnect`). The streams never give up (a session never goes deaf); this
 * only sets the pace of their attempts. What bounds a running turn through an outage is
 * `connectionLostAfterMs`, not this.
 */
import { UsageError } from "../../errors.js";
import { DEFAULT_BACKOFF } from "../../util/backoff.js";

/** The delays of a stream's reconnect attempts: doubling from the first to the cap (±20 %). */
export interface ReconnectPolicy {
  /** Delay before the first attempt after a failure. Default 250 ms. */
  initialDelayMs?: number;
  /** Cap of every delay, jitter included. Default 10 000 ms. */
  maxDelayMs?: number;
}

/** The production pace: 250 ms doubling to 10 s. */
export const DEFAULT_RECONNECT_POLICY: Required<ReconnectPolicy> = {
  initialDelayMs: DEFAULT_BACKOFF.initialMs,
  maxDelayMs: DEFAULT_BACKOFF.maxMs,
};

/** The policy with its defaults filled in; a value out of range is a `UsageError` naming it. */
export function reconnectPolicy(options: ReconnectPolicy = {}): Required<ReconnectPolicy> {
  const initialDelayMs = options.initialDelayMs ?? DEFAULT_RECONNECT_POLICY.initialDelayMs;
  const maxDelayMs = options.maxDelayMs ?? DEFAULT_RECONNECT_POLICY.maxDelayMs;
  if (!(Number.isFinite(initialDelayMs) && initialDelayMs > 0)) {
    throw new UsageError(
      `reconnect.initialDelayMs must be a finite number of milliseconds > 0, got ${initialDelayMs}`,
    );
  }
  if (!(Number.isFinite(maxDelayMs) && maxDelayMs >= initialDelayMs)) {
    throw new UsageError(
      `reconnect.maxDelayMs must be a finite number of milliseconds >= reconnect.initialDelayMs (${initialDelayMs}), got ${maxDelayMs}`,
    );
  }
  return { initialDelayMs, maxDelayMs };
}
