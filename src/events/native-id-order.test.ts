import { describe, expect, it } from "vitest";
import { nativeIdBefore } from "./native-id-order.js";

describe("nativeIdBefore", () => {
  it("orders ids of one server by their time and counter, not by their random tail", () => {
    // Seen on 1.18.33: a live stream's `server.connected`, then a part's start 1 s later.
    const connected = "evt_2314158cc001mvxoiK9GnJqZu4";
    const started = "evt_2314167f9001zeWFV2mcKdEWMy";
    expect(nativeIdBefore(connected, started)).toBe(true);
    expect(nativeIdBefore(started, connected)).toBe(false);
    expect(nativeIdBefore("evt_231416802001zzzz", "evt_231416802002aaaa")).toBe(true);
    expect(nativeIdBefore(started, started)).toBe(false);
  });

  it("takes the nearer way round when the 48 bits wrap", () => {
    expect(nativeIdBefore("evt_ffffffffff00abc", "evt_000000000100abc")).toBe(true);
    expect(nativeIdBefore("evt_000000000100abc", "evt_ffffffffff00abc")).toBe(false);
  });

  it("concludes nothing from an id of another shape", () => {
    expect(nativeIdBefore("evt_2314158cc001x", "42")).toBeUndefined();
    expect(nativeIdBefore("", "evt_2314158cc001x")).toBeUndefined();
  });
});
