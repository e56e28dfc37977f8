/**
 * Capped exponential backoff with jitter, for reconnect loops. A small class rather
 * than a closure so its state (the attempt count) is visible and testable.
 */
import { UsageError } from "../errors.js";

export interface BackoffOptions {
  /** Delay before the first retry. Default 250 ms. */
  initialMs?: number;
  /** Upper bound of every delay, jitter included. Default 10 000 ms. */
  maxMs?: number;
  /** Growth per attempt. Default 2. */
  factor?: number;
  /** Spread as a fraction of the delay: 0.2 draws from ±20 %. Default 0.2. */
  jitter?: number;
  /** Source of randomness in [0, 1); injectable for tests. Default `Math.random`. */
  random?: () => number;
}

export const DEFAULT_BACKOFF = {
  initialMs: 250,
  maxMs: 10_000,
  factor: 2,
  jitter: 0.2,
} as const;

/**
 * Delay n (0-based, counted since the last `reset()`) is
 * `min(maxMs, initialMs * factor^n)`, spread uniformly by ±jitter and then clamped to
 * `maxMs`, so `maxMs` is a hard bound on any single wait.
 */
export class Backoff {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly factor: number;
  readonly jitter: number;
  private readonly random: () => number;
  private attempts = 0;

  constructor(options: BackoffOptions = {}) {
    this.initialMs = options.initialMs ?? DEFAULT_BACKOFF.initialMs;
    this.maxMs = options.maxMs ?? DEFAULT_BACKOFF.maxMs;
    this.factor = options.factor ?? DEFAULT_BACKOFF.factor;
    this.jitter = options.jitter ?? DEFAULT_BACKOFF.jitter;
    this.random = options.random ?? Math.random;
    if (!(this.initialMs >= 0 && Number.isFinite(this.initialMs))) {
      throw new UsageError(`backoff.initialMs must be a finite number >= 0, got ${this.initialMs}`);
    }
    if (!(this.maxMs >= this.initialMs && Number.isFinite(this.maxMs))) {
      throw new UsageError(
        `backoff.maxMs must be a finite number >= initialMs (${this.initialMs}), got ${this.maxMs}`,
      );
    }
    if (!(this.factor >= 1 && Number.isFinite(this.factor))) {
      throw new UsageError(`backoff.factor must be a finite number >= 1, got ${this.factor}`);
    }
    if (!(this.jitter >= 0 && this.jitter <= 1)) {
      throw new UsageError(`backoff.jitter must be between 0 and 1, got ${this.jitter}`);
    }
  }

  /** How many delays were handed out since the last reset. */
  get attempt(): number {
    return this.attempts;
  }

  /** The delay before the next retry; each call grows the following one. */
  next(): number {
    // factor ** attempts overflows to Infinity after enough failures; min() keeps that harmless.
    const base = Math.min(this.maxMs, this.initialMs * this.factor ** this.attempts);
    this.attempts += 1;
    const spread = base * this.jitter * (2 * this.random() - 1);
    return Math.min(this.maxMs, Math.max(0, Math.round(base + spread)));
  }

  /** Starts over from `initialMs`; call it once the connection proved healthy. */
  reset(): void {
    this.attempts = 0;
  }
}
