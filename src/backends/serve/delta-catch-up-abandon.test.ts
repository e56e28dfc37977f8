/**
 * A turn the session ended itself (stalled, connection lost) gets no `turn.ended` through the
 * catch-up: its open parts are forgotten when the backend abandons it, so that a long session
 * with many such turns does not keep them all.
 */
import { describe, expect, it } from "vitest";
import { canonical } from "../../events/build.js";
import type { CanonicalEventOf, CanonicalType } from "../../events/canonical.js";
import { DeltaCatchUp } from "./delta-catch-up.js";

let n = 0;
function event<T extends CanonicalType>(
  type: T,
  data: CanonicalEventOf<T>["data"],
  turnId: string,
) {
  const native = { backend: "serve" as const, type, id: `e${n++}` };
  return canonical({ sessionId: "s", turnId, at: 0, native }, 0, type, data);
}

function setUp() {
  const out: string[] = [];
  const catchUp = new DeltaCatchUp((e) => out.push(e.type));
  catchUp.liveConnected();
  return { out, catchUp };
}

/** A turn cut short mid-part: its text started and streamed, and never ended. */
function cutShort(catchUp: DeltaCatchUp, turn: number): void {
  const turnId = `t${turn}`;
  catchUp.push(event("text.started", { partId: `p${turn}`, stepId: "step" }, turnId));
  catchUp.push(event("text.delta", { partId: `p${turn}`, delta: "half" }, turnId));
}

describe("DeltaCatchUp, an abandoned turn", () => {
  it("takes no more deltas of the abandoned turn's open parts", () => {
    const { out, catchUp } = setUp();
    cutShort(catchUp, 1);
    catchUp.abandonTurn("t1");
    catchUp.push(event("text.delta", { partId: "p1", delta: " late" }, "t1"));
    expect(out).toEqual(["text.started", "text.delta"]);
    expect(catchUp.stats().droppedDeltas).toBe(1);
  });

  it("keeps no more parts than its bound over many abandoned turns", () => {
    const { catchUp } = setUp();
    const turns = 1_500;
    for (let turn = 1; turn <= turns; turn++) {
      cutShort(catchUp, turn);
      catchUp.abandonTurn(`t${turn}`);
    }
    // The ended-parts window (1,000), not one part per turn the session ever abandoned.
    expect(catchUp.trackedParts).toBeLessThanOrEqual(1_000);
  });

  it("leaves the parts of other turns alone", () => {
    const { out, catchUp } = setUp();
    cutShort(catchUp, 1);
    catchUp.abandonTurn("t2");
    catchUp.push(event("text.delta", { partId: "p1", delta: " more" }, "t1"));
    expect(out).toEqual(["text.started", "text.delta", "text.delta"]);
  });
});
