/**
 * What the catch-up keeps of parts, over a long session. Of the parts that ended, only their
 * keys, for the last ENDED_PARTS_KEPT of them, so that their late deltas are dropped (found by
 * the reliability suite's soak: a record kept per ended part, 270 to 600 bytes, was most of
 * what a bridge's heap grew by over 10 minutes of turns, and up to 600 KB per long session).
 * And a turn the session ended itself (stalled, connection lost) gets no `turn.ended` through
 * the catch-up: its open parts are forgotten when the backend abandons it, so that a long
 * session with many such turns does not keep them all.
 */
import { getHeapCodeStatistics } from "node:v8";
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
  return canonical({ sessionId: "s", turnId, at: 0, native }, 0, type, data);
}

/**
 * The heap in use less V8's compiled code and its metadata: the code optimised while the parts
 * are streamed (it varies with the machine's load) is no part kept.
 */
function objectsHeap(): number {
  return process.memoryUsage().heapUsed - getHeapCodeStatistics().code_and_metadata_size;
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
    // The sessions exist before the weighing: what they hold per part, not each one's own
    // fixed cost (its maps and options).
    const sessions = [first];
    for (let session = 0; session < SESSIONS; session++) sessions.push(connected());
    await collectGarbage();
    const before = objectsHeap();
    for (const catchUp of sessions.slice(1)) streamParts(catchUp, 0, ENDED_PARTS_KEPT);
    await collectGarbage();
    const perPart = (objectsHeap() - before) / (SESSIONS * ENDED_PARTS_KEPT);
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

/** Turn `turn`: `parts` text parts streamed whole and ended, then the turn's end. */
function wholeTurn(catchUp: DeltaCatchUp, turn: number, parts: number): void {
  const turnId = `turn_${turn}`;
  for (let index = 0; index < parts; index++) {
    const id = partId(turn * parts + index);
    catchUp.push(event("text.started", { partId: id, stepId: "step" }, turnId));
    catchUp.push(event("text.delta", { partId: id, delta: "a reply" }, turnId));
    catchUp.push(event("text.ended", { partId: id, stepId: "step", text: "a reply" }, turnId));
  }
  catchUp.push(event("turn.ended", { outcome: "completed" }, turnId));
}

describe("DeltaCatchUp over a long session of turns", () => {
  it("remembers the ended parts of the running turn and the turn before, not a window", () => {
    const { catchUp } = setUp();
    for (let turn = 0; turn < 400; turn++) wholeTurn(catchUp, turn, 3);
    // Two turns' keys: 1,200 parts ended, a thousand-part window would keep 1,000.
    expect(catchUp.trackedParts).toBe(3);
    wholeTurn(catchUp, 400, 3);
    expect(catchUp.trackedParts).toBe(3);
  });

  it("drops a late delta that comes after its turn ended, while the next turn runs", () => {
    const { out, catchUp } = setUp();
    wholeTurn(catchUp, 0, 2);
    catchUp.push(event("turn.started", {}, "turn_1"));
    out.length = 0;
    catchUp.push(event("text.delta", { partId: partId(1), delta: "late" }, "turn_0"));
    expect(out).toEqual([]);
    expect(catchUp.trackedParts).toBe(2);
  });

  it("forgets a part that waits for its start through two turn ends (a delta later than that)", () => {
    const { out, catchUp } = setUp();
    for (let turn = 0; turn < 3; turn++) wholeTurn(catchUp, turn, 1);
    // Part 0's key is forgotten: its very late delta looks like a new part's early one.
    catchUp.push(event("text.delta", { partId: partId(0), delta: "very late" }, "turn_0"));
    expect(catchUp.trackedParts).toBe(2); // turn 2's part, and this one
    wholeTurn(catchUp, 3, 1);
    expect(catchUp.stats().droppedDeltas).toBe(0); // the next turn may still start it
    wholeTurn(catchUp, 4, 1);
    expect(catchUp.stats().droppedDeltas).toBe(1);
    expect(out.filter((type) => type === "text.delta")).toHaveLength(5);
    expect(catchUp.trackedParts).toBe(2);
  });
});

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
    // The last two turns' parts, not one part per turn the session ever abandoned.
    expect(catchUp.trackedParts).toBeLessThanOrEqual(2);
  });

  it("leaves the parts of other turns alone", () => {
    const { out, catchUp } = setUp();
    cutShort(catchUp, 1);
    catchUp.abandonTurn("t2");
    catchUp.push(event("text.delta", { partId: "p1", delta: " more" }, "t1"));
    expect(out).toEqual(["text.started", "text.delta", "text.delta"]);
  });
});
