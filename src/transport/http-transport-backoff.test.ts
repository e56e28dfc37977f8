/**
 * The pace of an event stream's reconnect attempts (`reconnectBackoff`, which
 * `BridgeOptions.reconnect` sets): a stream whose every attempt fails reports the delay it
 * waits before the next one.
 */
import { describe, expect, it } from "vitest";
import { HttpTransport } from "./http-transport.js";
import type { StreamConnectionChange } from "./transport.js";

/** The delays a stream reports for its first `count` failed attempts, against a dead server. */
async function reportedDelays(transport: HttpTransport, count: number): Promise<number[]> {
  const delays: number[] = [];
  const reading = new AbortController();
  const stream = transport.stream(() => ({ operation: "event.subscribe" }), {
    signal: reading.signal,
    onConnection: (change: StreamConnectionChange) => {
      if (change.state !== "reconnecting") return;
      delays.push(change.retryInMs);
      if (delays.length === count) reading.abort();
    },
  });
  await expect(
    (async () => {
      for await (const _ of stream) throw new Error("a dead server sent an event");
    })(),
  ).rejects.toThrow(/abort/i);
  return delays;
}

const refusingFetch: typeof fetch = async () => {
  throw new TypeError("fetch failed (refused, as by a server that is away)");
};

describe("an event stream's reconnect pace", () => {
  it("the production default without the option", async () => {
    const transport = new HttpTransport({ url: "http://127.0.0.1:9", fetch: refusingFetch });
    const [first] = await reportedDelays(transport, 1);
    // 250 ms ± 20 % jitter.
    expect(first).toBeGreaterThanOrEqual(200);
    expect(first).toBeLessThanOrEqual(300);
  });

  it("the given delays, doubling up to the cap", async () => {
    const transport = new HttpTransport({
      url: "http://127.0.0.1:9",
      fetch: refusingFetch,
      reconnectBackoff: { initialMs: 4, maxMs: 20 },
    });
    const delays = await reportedDelays(transport, 6);
    expect(delays[0]).toBeGreaterThanOrEqual(3);
    expect(delays[0]).toBeLessThanOrEqual(5);
    expect(delays.every((delay) => delay <= 20)).toBe(true);
    expect(delays.at(-1)).toBeGreaterThanOrEqual(16); // 4·2³ capped at 20, −20 % jitter
  });
});
