/**
 * What the catch-up keeps of the parts that ended: their keys, for the last ENDED_PARTS_KEPT
 * of them, so that their late deltas are dropped. Found by the reliability suite's soak: a
 * record kept per ended part (270 to 600 bytes) was most of what a bridge's heap grew by
 * over 10 minutes of turns, and up to 600 KB per long session.
 */
import { describe, expect, it } from "vitest";
import { collectGarbage } from "../../../test/support/collect-garbage.js";
import { canonical } from "../../events/build.js";
import type { CanonicalEventOf, CanonicalType } from "../../events/canonical.js";
import { DeltaCatchUp, ENDED_PARTS_KEPT } from "./delta-catch-up.js";

let n = 0;
function event<T extends CanonicalType>(
  type: T,
  data: CanonicalEventOf<T>["data"],
  turnId: string,
) {
  const native = { backend: "serve" as const, type, id: `e${n++}` };
  return canonical({ sessionId: "ses_memory", turnId, at: 0, native }, 0, type, data);
}

/** Sessions weighed at once: their figure, not the test process's noise (its own allocations). */
const SESSIONS = 8;

/** An id shaped like OpenCode's (`prt_` and 26 characters), distinct per part. */
const partId = (index: number) => `prt_${(1e15 + index).toString(36).padEnd(26, "x")}`;

/** Parts `from` to `to`, each started, streamed whole and ended, four to a turn. */
function streamParts(catchUp: DeltaCatchUp, from: number, to: number): void {
  for (let index = from; index < to; index++) {
    const id = partId(index);
    const turnId = `turn_${Math.floor(index / 4)}`;
    catchUp.push(event("text.started", { partId: id, stepId: "step" }, turnId));
    catchUp.push(event("text.delta", { partId: id, delta: "a reply" }, turnId));
    catchUp.push(event("text.ended", { partId: id, stepId: "step", text: "a reply" }, turnId));
  }
}

describe("DeltaCatchUp, the parts that ended", () => {
  it("remembers an ended part by its key alone (a few dozen bytes, not a record)", async () => {
    const connected = () => {
      const catchUp = new DeltaCatchUp(() => {});
      catchUp.liveConnected();
      return catchUp;
    };
    // A first session's parts warm up the code paths (V8's compiled code is no part kept).
    const first = connected();
    streamParts(first, 0, ENDED_PARTS_KEPT);
    const sessions = [first];
    await collectGarbage();
    const before = process.memoryUsage().heapUsed;
    for (let session = 0; session < SESSIONS; session++) {
      const catchUp = connected();
      streamParts(catchUp, 0, ENDED_PARTS_KEPT);
      sessions.push(catchUp);
    }
    await collectGarbage();
    const perPart = (process.memoryUsage().heapUsed - before) / (SESSIONS * ENDED_PARTS_KEPT);
    // About 90 bytes (the key and its map entry); a record kept per part made it 270.
    expect(perPart).toBeLessThan(160);
    for (const catchUp of sessions) expect(catchUp.trackedParts).toBe(ENDED_PARTS_KEPT);
  });

  it("drops the late deltas of the parts it remembers, and forgets the oldest beyond its bound", () => {
    const out: string[] = [];
    const catchUp = new DeltaCatchUp((e) => out.push(e.type));
    catchUp.liveConnected();
    streamParts(catchUp, 0, ENDED_PARTS_KEPT + 1);
    out.length = 0;
    catchUp.push(event("text.delta", { partId: partId(1), delta: " late" }, "turn_0"));
    catchUp.push(event("text.ended", { partId: partId(1), stepId: "step", text: "x" }, "turn_0"));
    expect(out).toEqual(["text.ended"]); // the late delta dropped, another end passed on
    expect(catchUp.stats().droppedDeltas).toBe(1);
    expect(catchUp.trackedParts).toBe(ENDED_PARTS_KEPT);
    // Part 0 is forgotten: a delta of it is a new part's, waiting for its start.
    catchUp.push(event("text.delta", { partId: partId(0), delta: " later" }, "turn_0"));
    expect(catchUp.trackedParts).toBe(ENDED_PARTS_KEPT + 1);
  });
});
