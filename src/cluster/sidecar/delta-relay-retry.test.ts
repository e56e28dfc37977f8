/**
 * The relay's retries when nobody drives the session (fake timers, no network): it looks the
 * driver up again with a backoff that grows to 30 s, and a nudge (the session's feed moved:
 * someone drives it now) makes it look at once, but never sooner than 1 s after its last try.
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { silentLogger } from "../../util/logger.js";
import { ClusterTrust } from "./cluster-trust.js";
import { DeltaRelay } from "./delta-relay.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

it("looks a missing driver up with a growing backoff, and at once when nudged", async () => {
  const tries: number[] = [];
  const relay = new DeltaRelay({
    driverOf: async () => {
      tries.push(Date.now());
      return undefined;
    },
    trust: new ClusterTrust({ secret: "relay-test-secret-0123456789" }, silentLogger),
    logger: silentLogger,
  });
  const stop = new AbortController();
  const sink = { delta: () => {}, live: () => {}, lost: () => {} };
  const following = relay.follow("ses_1", sink, stop.signal);
  const start = Date.now();
  await vi.advanceTimersByTimeAsync(10_000);
  // Tries at 0, 50, 150, 350, 750, 1550, 3150, 6350 ms; the next one 12.8 s later.
  expect(tries.map((at) => at - start)).toEqual([0, 50, 150, 350, 750, 1550, 3150, 6350]);
  following.nudge();
  await vi.advanceTimersByTimeAsync(0);
  expect(tries.length).toBe(9); // at once
  // A nudge right after a try waits for the floor: a relay is not asked at every event.
  following.nudge();
  await vi.advanceTimersByTimeAsync(999);
  expect(tries.length).toBe(9);
  await vi.advanceTimersByTimeAsync(1);
  expect(tries.length).toBe(10);
  stop.abort();
  await following.done;
  expect(relay.sockets).toBe(0);
});
