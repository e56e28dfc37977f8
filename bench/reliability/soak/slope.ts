/**
 * The trend of a memory figure over a run: the least-squares slope of its samples, in KiB per
 * minute, and whether that is flat by the suite's threshold.
 */

/** Least-squares slope of `y` over `x` (units of y per unit of x); 0 with fewer than 2 points. */
export function leastSquaresSlope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const { x, y } of points) {
    covariance += (x - meanX) * (y - meanY);
    variance += (x - meanX) ** 2;
  }
  return variance === 0 ? 0 : covariance / variance;
}

/** The slope of `bytes(sample)` over the samples' times, in KiB per minute. */
export function slopeKiBPerMinute<T extends { atMs: number }>(
  samples: readonly T[],
  bytes: (sample: T) => number,
): number {
  const points = samples.map((sample) => ({ x: sample.atMs / 60_000, y: bytes(sample) / 1024 }));
  return leastSquaresSlope(points);
}

/** "+12.3 KiB/min (+17.3 MiB/day)": the slope, and what it would add up to over a day. */
export function formatSlope(kibPerMinute: number): string {
  const sign = (value: number) => (value >= 0 ? "+" : "");
  const perDay = (kibPerMinute * 60 * 24) / 1024;
  return `${sign(kibPerMinute)}${kibPerMinute.toFixed(1)} KiB/min (${sign(perDay)}${perDay.toFixed(1)} MiB/day)`;
}
