/** `BridgeOptions.reconnect`: its production defaults and its refusals. */
import { describe, expect, it } from "vitest";
import { UsageError } from "../../errors.js";
import { Bridge } from "./bridge.js";
import { DEFAULT_RECONNECT_POLICY, reconnectPolicy } from "./reconnect-policy.js";

describe("the stream reconnect policy", () => {
  it("defaults to 250 ms doubling to 10 s, as in production before it was an option", () => {
    expect(DEFAULT_RECONNECT_POLICY).toEqual({ initialDelayMs: 250, maxDelayMs: 10_000 });
    expect(reconnectPolicy()).toEqual(DEFAULT_RECONNECT_POLICY);
    expect(reconnectPolicy({ maxDelayMs: 500 })).toEqual({ initialDelayMs: 250, maxDelayMs: 500 });
  });

  it.each([
    [{ initialDelayMs: 0 }, /reconnect\.initialDelayMs must be .* > 0, got 0/],
    [{ initialDelayMs: Number.NaN }, /reconnect\.initialDelayMs .* got NaN/],
    [
      { initialDelayMs: 100, maxDelayMs: 50 },
      /reconnect\.maxDelayMs must be .*>= reconnect\.initialDelayMs \(100\), got 50/,
    ],
    [{ maxDelayMs: Number.POSITIVE_INFINITY }, /reconnect\.maxDelayMs .* got Infinity/],
  ])("refuses %o with a UsageError naming the option", (policy, message) => {
    expect(() => reconnectPolicy(policy)).toThrow(UsageError);
    expect(() => reconnectPolicy(policy)).toThrow(message);
  });

  it("is refused by Bridge.start before anything is started or reached", async () => {
    // An attach URL nobody listens on: the refusal must come before it is tried.
    const started = Bridge.start({
      directory: "/tmp",
      attach: { url: "http://127.0.0.1:9" },
      store: ":memory:",
      reconnect: { initialDelayMs: -1 },
    });
    await expect(started).rejects.toThrow(UsageError);
    await expect(started).rejects.toThrow(/reconnect\.initialDelayMs/);
  });
});
