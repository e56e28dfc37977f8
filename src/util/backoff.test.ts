import { describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { Backoff } from "./backoff.js";

/** A random source that repeats the given values. */
function fixed(...values: number[]): () => number {
  let index = 0;
  return () => values[index++ % values.length] ?? 0.5;
}

describe("Backoff", () => {
  it("grows by the factor and stops at maxMs", () => {
    const backoff = new Backoff({
      initialMs: 100,
      maxMs: 1000,
      factor: 2,
      jitter: 0,
      random: fixed(0.5),
    });
    const delays = Array.from({ length: 8 }, () => backoff.next());
    expect(delays).toEqual([100, 200, 400, 800, 1000, 1000, 1000, 1000]);
    expect(backoff.attempt).toBe(8);
  });

  it("uses the documented defaults (250 ms, x2, capped at 10 s)", () => {
    const backoff = new Backoff({ jitter: 0 });
    const delays = Array.from({ length: 8 }, () => backoff.next());
    expect(delays).toEqual([250, 500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
  });

  it("keeps jitter within ±jitter of the base delay, and maxMs stays a hard bound", () => {
    const low = new Backoff({ initialMs: 1000, maxMs: 5000, jitter: 0.2, random: fixed(0) });
    const high = new Backoff({
      initialMs: 1000,
      maxMs: 5000,
      jitter: 0.2,
      random: fixed(0.999_999),
    });
    expect(low.next()).toBe(800);
    expect(high.next()).toBe(1200);

    const random = new Backoff({ initialMs: 1000, maxMs: 5000, jitter: 0.2 });
    const seen = new Set<number>();
    for (let i = 0; i < 200; i++) {
      random.reset();
      const delay = random.next();
      expect(delay).toBeGreaterThanOrEqual(800);
      expect(delay).toBeLessThanOrEqual(1200);
      seen.add(delay);
    }
    // Jitter actually spreads the delays (200 draws landing on one value would mean none).
    expect(seen.size).toBeGreaterThan(10);

    const capped = new Backoff({ initialMs: 5000, maxMs: 5000, jitter: 0.2, random: fixed(0.99) });
    expect(capped.next()).toBe(5000);
    const cappedLow = new Backoff({ initialMs: 5000, maxMs: 5000, jitter: 0.2, random: fixed(0) });
    expect(cappedLow.next()).toBe(4000);
  });

  it("starts over after reset", () => {
    const backoff = new Backoff({ initialMs: 10, maxMs: 1000, jitter: 0 });
    backoff.next();
    backoff.next();
    expect(backoff.next()).toBe(40);
    backoff.reset();
    expect(backoff.attempt).toBe(0);
    expect(backoff.next()).toBe(10);
    expect(backoff.next()).toBe(20);
  });

  it("does not overflow after very many attempts", () => {
    const backoff = new Backoff({ initialMs: 1, maxMs: 50, factor: 10, jitter: 0 });
    for (let i = 0; i < 2000; i++) backoff.next();
    expect(backoff.next()).toBe(50);
  });

  it("rejects invalid options with UsageError", () => {
    expect(() => new Backoff({ initialMs: -1 })).toThrow(UsageError);
    expect(() => new Backoff({ initialMs: 100, maxMs: 50 })).toThrow(UsageError);
    expect(() => new Backoff({ factor: 0.5 })).toThrow(UsageError);
    expect(() => new Backoff({ jitter: 1.5 })).toThrow(UsageError);
    expect(() => new Backoff({ maxMs: Number.POSITIVE_INFINITY })).toThrow(UsageError);
  });
});
