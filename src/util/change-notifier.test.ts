import { getEventListeners } from "node:events";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AbortError } from "../errors.js";
import { ChangeNotifier } from "./change-notifier.js";

/** Whether `promise` has settled by the time pending callbacks have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe("ChangeNotifier", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  describe("wait", () => {
    it("wakes every waiting reader at the next notify, and only the next", async () => {
      const changes = new ChangeNotifier();
      changes.notify(); // nobody waits: nothing is remembered
      const first = changes.wait(undefined, "first");
      const second = changes.wait(undefined, "second");
      expect(await settled(first)).toBe(false);
      changes.notify();
      await expect(first).resolves.toBeUndefined();
      await expect(second).resolves.toBeUndefined();
      const later = changes.wait(undefined, "later");
      expect(await settled(later)).toBe(false);
      changes.notify();
      await expect(later).resolves.toBeUndefined();
    });

    it("rejects with an AbortError naming the wait when the signal fires, or has fired", async () => {
      const changes = new ChangeNotifier();
      const controller = new AbortController();
      const waiting = changes.wait(controller.signal, "reading turn t1");
      controller.abort();
      await expect(waiting).rejects.toBeInstanceOf(AbortError);
      await expect(waiting).rejects.toThrow("reading turn t1");
      await expect(changes.wait(controller.signal, "again")).rejects.toBeInstanceOf(AbortError);
      changes.notify(); // the aborted reader is gone: nothing to wake, nothing thrown
    });

    it("leaves no listener on the signal once woken, however many waits it served", async () => {
      const changes = new ChangeNotifier();
      const controller = new AbortController();
      for (let i = 0; i < 50; i++) {
        const waiting = changes.wait(controller.signal, "loop");
        changes.notify();
        await waiting;
      }
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    });
  });

  describe("until", () => {
    it("resolves true at once when the condition holds, leaving no timer", async () => {
      const changes = new ChangeNotifier();
      await expect(changes.until(() => true, { what: "x", timeoutMs: 1_000 })).resolves.toBe(true);
      expect(vi.getTimerCount()).toBe(0);
    });

    it("re-checks at each notify and resolves true once the condition holds", async () => {
      const changes = new ChangeNotifier();
      let value = 0;
      const checks = vi.fn(() => value >= 2);
      const waiting = changes.until(checks, { what: "value reaches 2", timeoutMs: 1_000 });
      value = 1;
      changes.notify();
      expect(await settled(waiting)).toBe(false);
      value = 2;
      changes.notify();
      await expect(waiting).resolves.toBe(true);
      expect(checks).toHaveBeenCalledTimes(3);
      expect(vi.getTimerCount()).toBe(0);
    });

    it("resolves false when the bound passes first", async () => {
      const changes = new ChangeNotifier();
      const waiting = changes.until(() => false, { what: "never", timeoutMs: 1_000 });
      await vi.advanceTimersByTimeAsync(999);
      expect(await settled(waiting)).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await expect(waiting).resolves.toBe(false);
    });

    it("rejects with AbortError when the caller's signal fires, and leaves no listener on it", async () => {
      const changes = new ChangeNotifier();
      const controller = new AbortController();
      const waiting = changes.until(() => false, {
        what: "admission",
        timeoutMs: 1_000,
        signal: controller.signal,
      });
      controller.abort();
      await expect(waiting).rejects.toBeInstanceOf(AbortError);
      expect(vi.getTimerCount()).toBe(0);
      const done = new AbortController();
      await changes.until(() => true, { what: "x", timeoutMs: 1_000, signal: done.signal });
      expect(getEventListeners(done.signal, "abort")).toHaveLength(0);
    });

    it("passes on an error of the condition itself, not mistaken for a timeout", async () => {
      const changes = new ChangeNotifier();
      let calls = 0;
      const waiting = changes.until(
        () => {
          if (++calls > 1) throw new TypeError("state is broken");
          return false;
        },
        { what: "broken", timeoutMs: 1_000 },
      );
      changes.notify();
      await expect(waiting).rejects.toThrow(TypeError);
      expect(vi.getTimerCount()).toBe(0);
    });
  });

  describe("waiter", () => {
    it("wakes one reader at each notify, listening to its signal once for all its waits", async () => {
      const changes = new ChangeNotifier();
      const stop = new AbortController();
      const waiter = changes.waiter(stop.signal, "a reader");
      for (let i = 0; i < 3; i++) {
        const waiting = waiter.wait();
        expect(await settled(waiting)).toBe(false);
        changes.notify();
        await expect(waiting).resolves.toBeUndefined();
      }
      expect(getEventListeners(stop.signal, "abort")).toHaveLength(1);
      waiter.close();
      expect(getEventListeners(stop.signal, "abort")).toHaveLength(0);
    });

    it("rejects the wait under way, and any later one, once the signal fires", async () => {
      const changes = new ChangeNotifier();
      const stop = new AbortController();
      const waiter = changes.waiter(stop.signal, "a reader");
      const waiting = waiter.wait();
      stop.abort();
      await expect(waiting).rejects.toThrow(AbortError);
      await expect(waiter.wait()).rejects.toThrow(AbortError);
      waiter.close();
    });
  });
});
