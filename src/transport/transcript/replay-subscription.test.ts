import { describe, expect, it } from "vitest";
import { AbortError } from "../../errors.js";
import { ReplaySubscription } from "./replay-subscription.js";

describe("ReplaySubscription", () => {
  it("waits only while its reader waits, and hands over events in order", async () => {
    const subscription = new ReplaySubscription("event.subscribe");
    expect(subscription.waiting).toBe(false);
    const first = subscription.next(undefined);
    expect(subscription.waiting).toBe(true);
    subscription.deliver({ n: 1 });
    expect(subscription.waiting).toBe(false);
    await expect(first).resolves.toEqual({ n: 1 });
    const second = subscription.next(undefined);
    subscription.deliver({ n: 2 });
    await expect(second).resolves.toEqual({ n: 2 });
  });

  it("rejects a read with AbortError on its signal, before or during the wait", async () => {
    const subscription = new ReplaySubscription("event.subscribe");
    await expect(subscription.next(AbortSignal.abort())).rejects.toBeInstanceOf(AbortError);
    const controller = new AbortController();
    const read = subscription.next(controller.signal);
    controller.abort();
    await expect(read).rejects.toThrow("replayed event.subscribe stream");
    expect(subscription.waiting).toBe(false);
  });

  it("fails the waiting read and every later one with the replay's failure", async () => {
    const subscription = new ReplaySubscription("event.subscribe");
    const read = subscription.next(undefined);
    const failure = new Error("mismatch");
    subscription.fail(failure);
    await expect(read).rejects.toBe(failure);
    await expect(subscription.next(undefined)).rejects.toBe(failure);
    expect(subscription.closed).toBe(true);
    expect(subscription.waiting).toBe(false);
  });

  it("is closed (and waits no more) once its reader closed it", () => {
    const subscription = new ReplaySubscription("event.subscribe");
    void subscription.next(undefined);
    subscription.close();
    expect(subscription.closed).toBe(true);
    expect(subscription.waiting).toBe(false);
  });
});
