/** Small helpers shared by the benchmarks: order statistics, formatting, bounded waits. */
import { TimeoutError } from "../src/errors.js";

/** The median of `values` (NaN when empty). */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** The `p`-th percentile (0–100) by linear interpolation between closest ranks (NaN when empty). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (Math.min(100, Math.max(0, p)) / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const a = sorted[low] ?? Number.NaN;
  const b = sorted[high] ?? a;
  return a + (b - a) * (rank - low);
}

/** `1.23M ev/s`, `45.6k ev/s`. */
export function formatRate(perSecond: number): string {
  if (perSecond >= 1e6) return `${(perSecond / 1e6).toFixed(2)}M ev/s`;
  if (perSecond >= 1e3) return `${(perSecond / 1e3).toFixed(1)}k ev/s`;
  return `${perSecond.toFixed(0)} ev/s`;
}

/** Milliseconds with a precision that suits their size. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "n/a";
  const digits = Math.abs(ms) >= 100 ? 0 : Math.abs(ms) >= 10 ? 1 : 2;
  return `${ms.toFixed(digits)} ms`;
}

/** `3.02x` (or `n/a` when the baseline is zero or missing). */
export function formatRatio(ratio: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : "n/a";
}

/**
 * Rejects with `TimeoutError` when `promise` has not settled within `ms`. The wait itself is
 * not cancelled: callers pass a signal to the underlying work when it must stop too.
 */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(what, ms)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Progress notes go to stderr so that stdout holds only the figures. */
export function note(message: string): void {
  process.stderr.write(`${message}\n`);
}
