import { describe, expect, it } from "vitest";
import { canonical } from "./build.js";
import type { CanonicalEventOf, CanonicalType } from "./canonical.js";
import { deltaFromEnd, partEventOf } from "./part-events.js";

function event<T extends CanonicalType>(type: T, data: CanonicalEventOf<T>["data"]) {
  const origin = {
    sessionId: "s",
    turnId: "t1",
    at: 42,
    native: { backend: "serve" as const, type, id: "n1" },
  };
  return { ...canonical(origin, 0, type, data), seq: 7 };
}

describe("deltaFromEnd", () => {
  it("makes the delta of each kind of part from its end: same part, turn and time, not durable, no seq", () => {
    const text = deltaFromEnd(event("text.ended", { partId: "p", text: "hello" }), "lo");
    expect(text).toMatchObject({
      type: "text.delta",
      data: { partId: "p", delta: "lo" },
      turnId: "t1",
      at: 42,
      durable: false,
    });
    expect(text).not.toHaveProperty("seq");
    expect(deltaFromEnd(event("reasoning.ended", { partId: "r", text: "hm" }), "m")).toMatchObject({
      type: "reasoning.delta",
      data: { partId: "r", delta: "m" },
    });
    const input = deltaFromEnd(event("tool.input.ended", { callId: "c", input: "{}" }), "}");
    expect(input).toMatchObject({ type: "tool.input.delta", data: { callId: "c", delta: "}" } });
    // Read back, each is a delta of the same part as its end.
    for (const [end, delta] of [
      [event("text.ended", { partId: "p", text: "hello" }), text],
      [event("tool.input.ended", { callId: "c", input: "{}" }), input],
    ] as const) {
      const [endPart, deltaPart] = [
        partEventOf(end),
        delta === undefined ? undefined : partEventOf(delta),
      ];
      expect(deltaPart).toMatchObject({ kind: endPart?.kind, id: endPart?.id, phase: "delta" });
    }
  });

  it("has no delta for an event that ends no streamed part", () => {
    expect(deltaFromEnd(event("turn.ended", { outcome: "completed" }), "x")).toBeUndefined();
  });

  it("gives each delta an id of its own", () => {
    const end = event("text.ended", { partId: "p", text: "hello" });
    expect(deltaFromEnd(end, "lo")?.id).not.toBe(end.id);
  });
});
