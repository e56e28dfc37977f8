import { describe, expect, it } from "vitest";
import { canonical } from "../../events/build.js";
import type { CanonicalEvent, CanonicalEventOf, CanonicalType } from "../../events/canonical.js";
import { DeltaCatchUp } from "./delta-catch-up.js";

let n = 0;
function event<T extends CanonicalType>(
  type: T,
  data: CanonicalEventOf<T>["data"],
): CanonicalEvent {
  const origin = {
    sessionId: "s",
    turnId: "t",
    at: 0,
    native: { backend: "serve" as const, type, id: `e${n++}` },
  };
  return canonical(origin, 0, type, data);
}

describe("DeltaCatchUp", () => {
  it("holds a turn's end until the deltas cover its texts, keeping later events behind it", () => {
    const out: string[] = [];
    const catchUp = new DeltaCatchUp(
      (e) => out.push(e.type === "text.delta" ? `delta ${e.data.delta}` : e.type),
      10_000,
    );
    catchUp.push(event("text.delta", { partId: "p", delta: "hel" }));
    catchUp.push(event("text.ended", { partId: "p", text: "hello" }));
    catchUp.push(event("turn.ended", { outcome: "completed", text: "hello" }));
    catchUp.push(event("input.admitted", { inputId: "i2", text: "next", delivery: "queue" }));
    expect(out).toEqual(["delta hel", "text.ended"]);
    catchUp.push(event("text.delta", { partId: "p", delta: "lo" }));
    expect(out).toEqual(["delta hel", "text.ended", "delta lo", "turn.ended", "input.admitted"]);
  });

  it("lets the end go after the bound when a delta never comes", async () => {
    const out: string[] = [];
    const catchUp = new DeltaCatchUp((e) => out.push(e.type), 20);
    catchUp.push(event("text.ended", { partId: "p", text: "hello" }));
    catchUp.push(event("turn.ended", { outcome: "completed", text: "hello" }));
    expect(out).toEqual(["text.ended"]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(out).toEqual(["text.ended", "turn.ended"]);
  });

  it("on flush lets everything go, in order, and holds nothing after", () => {
    const out: string[] = [];
    const catchUp = new DeltaCatchUp(
      (e) => out.push(e.type === "text.delta" ? `delta ${e.data.delta}` : e.type),
      10_000,
    );
    catchUp.push(event("text.ended", { partId: "p1", text: "one" }));
    catchUp.push(event("turn.ended", { outcome: "completed", text: "one" }));
    catchUp.push(event("text.delta", { partId: "p2", delta: "two" }));
    catchUp.push(event("text.ended", { partId: "p2", text: "two" }));
    catchUp.push(event("turn.ended", { outcome: "completed", text: "two" }));
    expect(out).toEqual(["text.ended", "delta two"]);
    catchUp.flush();
    expect(out).toEqual(["text.ended", "delta two", "turn.ended", "text.ended", "turn.ended"]);
    catchUp.push(event("text.ended", { partId: "p3", text: "three" }));
    catchUp.push(event("turn.ended", { outcome: "completed", text: "three" }));
    expect(out.slice(-2)).toEqual(["text.ended", "turn.ended"]);
  });

  it("passes an end straight through when the deltas are already there", () => {
    const out: string[] = [];
    const catchUp = new DeltaCatchUp((e) => out.push(e.type));
    catchUp.push(event("text.delta", { partId: "p", delta: "hi" }));
    catchUp.push(event("text.ended", { partId: "p", text: "hi" }));
    catchUp.push(event("turn.ended", { outcome: "completed", text: "hi" }));
    expect(out).toEqual(["text.delta", "text.ended", "turn.ended"]);
  });
});
