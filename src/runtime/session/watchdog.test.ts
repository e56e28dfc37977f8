import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type Stall, Watchdog } from "./watchdog.js";

const BOUNDS = { admitTimeoutMs: 1_000, silenceTimeoutMs: 5_000 };

describe("Watchdog", () => {
  let stalls: Stall[];
  let watchdog: Watchdog;
  beforeEach(() => {
    vi.useFakeTimers();
    stalls = [];
    watchdog = new Watchdog(BOUNDS, (stall) => stalls.push(stall));
  });
  afterEach(() => {
    watchdog.stop();
    vi.useRealTimers();
  });

  it("reports an admitted input with no step after the admission bound, once", () => {
    watchdog.update("waiting-for-step");
    vi.advanceTimersByTime(999);
    expect(stalls).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(stalls).toEqual([
      { kind: "no-step", afterMs: 1_000, hint: expect.stringContaining("within 1 s") },
    ]);
    vi.advanceTimersByTime(60_000);
    expect(stalls).toHaveLength(1);
  });

  it("reports a silent step after the silence bound", () => {
    watchdog.update("in-step");
    vi.advanceTimersByTime(4_999);
    expect(stalls).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(stalls).toEqual([
      { kind: "silent-step", afterMs: 5_000, hint: expect.stringContaining("nothing for 5 s") },
    ]);
  });

  it("starts the bound again at every update: activity keeps it quiet", () => {
    watchdog.update("in-step");
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(4_000);
      watchdog.update("in-step");
    }
    expect(stalls).toEqual([]);
    vi.advanceTimersByTime(5_000);
    expect(stalls.map((stall) => stall.kind)).toEqual(["silent-step"]);
  });

  it("a phase change replaces the bound: no stale no-step once a step runs", () => {
    watchdog.update("waiting-for-step");
    vi.advanceTimersByTime(900);
    watchdog.update("in-step");
    vi.advanceTimersByTime(4_999);
    expect(stalls).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(stalls.map((stall) => stall.kind)).toEqual(["silent-step"]);
  });

  it("idle and stop clear the timer", () => {
    watchdog.update("waiting-for-step");
    watchdog.update("idle");
    expect(vi.getTimerCount()).toBe(0);
    watchdog.update("in-step");
    watchdog.stop();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(60_000);
    expect(stalls).toEqual([]);
  });

  it("keeps one timer however often it is updated", () => {
    for (let i = 0; i < 100; i++) watchdog.update(i % 2 === 0 ? "in-step" : "waiting-for-step");
    expect(vi.getTimerCount()).toBe(1);
  });

  it("does not keep the process alive", () => {
    vi.useRealTimers();
    const real = new Watchdog(BOUNDS, () => {});
    const setTimeoutSpy = vi.spyOn(globalThis, "setTimeout");
    real.update("in-step");
    const timer = setTimeoutSpy.mock.results[0]?.value as NodeJS.Timeout;
    setTimeoutSpy.mockRestore();
    expect(timer.hasRef()).toBe(false);
    real.stop();
  });
});
