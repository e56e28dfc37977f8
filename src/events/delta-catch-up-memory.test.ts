/**
 * What the catch-up keeps of parts, over a long session. Of the parts that ended, only their
 * keys, for the running turn and the turn before, so that their late deltas are dropped (found by
 * the reliability suite's soak: a record kept per ended part, 270 to 600 bytes, was most of
 * what a bridge's heap grew by over 10 minutes of turns, and up to 600 KB per long session).
 * And a turn the session ended itself (stalled, connection lost) gets no `turn.ended` through
 * the catch-up: its open parts are forgotten when the backend abandons it, so that a long
 * session with many such turns does not keep them all.
 */
import { getHeapCodeStatistics } from "node:v8";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { collectGarbage } from "../../test/support/collect-garbage.js";
import { canonical } from "./build.js";
import type { CanonicalEvent, CanonicalEventOf, CanonicalType } from "./canonical.js";
import {
  DELTA_MAX_HOLD_MS,
  DeltaCatchUp,
  ENDED_PARTS_KEPT,
  ORPHAN_AFTER_MS,
} from "./delta-catch-up.js";

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

/**
 * Turn `turn`: `parts` text parts streamed whole and ended, then the turn's end, `apartMs`
 * after the turn before's (on the faked clock: the ended parts' keys turn over at most once
 * per hold bound).
 */
function wholeTurn(
  catchUp: DeltaCatchUp,
  turn: number,
  parts: number,
  apartMs = DELTA_MAX_HOLD_MS,
): void {
  vi.setSystemTime(Date.now() + apartMs);
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
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("remembers the ended parts of the running turn and the turn before, not a window", () => {
    const { catchUp } = setUp();
    for (let turn = 0; turn < 400; turn++) wholeTurn(catchUp, turn, 3);
    // Two turns' keys: 1,200 parts ended, a thousand-part window would keep 1,000.
    expect(catchUp.trackedParts).toBe(3);
    wholeTurn(catchUp, 400, 3);
    expect(catchUp.trackedParts).toBe(3);
  });

  it("keeps the keys a hold bound at least, though the next turn ends at once", () => {
    const { out, catchUp } = setUp();
    wholeTurn(catchUp, 0, 1);
    wholeTurn(catchUp, 1, 1);
    // Turn 2 fails at once: no part, and its end comes a moment after turn 1's.
    catchUp.push(event("turn.started", {}, "turn_2"));
    catchUp.push(event("turn.ended", { outcome: "failed" }, "turn_2"));
    out.length = 0;
    // Turn 1's part's late delta: still known, so dropped at once (not taken for a new part
    // waiting for its start, to be dropped a minute later or at the session's close).
    catchUp.push(event("text.delta", { partId: partId(1), delta: " late" }, "turn_1"));
    expect(out).toEqual([]);
    expect(catchUp.stats().droppedDeltas).toBe(1);
    expect(catchUp.trackedParts).toBe(1);
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

  it("drops an orphan: a part whose start never came, two turn ends and a minute on", () => {
    vi.useFakeTimers();
    try {
      const { out, catchUp } = setUp();
      for (let turn = 0; turn < 3; turn++) wholeTurn(catchUp, turn, 1);
      // Part 0's key is forgotten: its very late delta looks like a new part's early one.
      catchUp.push(event("text.delta", { partId: partId(0), delta: "very late" }, "turn_0"));
      expect(catchUp.trackedParts).toBe(2); // turn 2's part, and this one
      wholeTurn(catchUp, 3, 1, 0);
      wholeTurn(catchUp, 4, 1, 0);
      // Two turn ends, but not a minute: the live stream may be turns ahead of the durable.
      expect(catchUp.stats().droppedDeltas).toBe(0);
      wholeTurn(catchUp, 5, 1, ORPHAN_AFTER_MS);
      expect(catchUp.stats().droppedDeltas).toBe(1);
      expect(out.filter((type) => type === "text.delta")).toHaveLength(6);
      // Turns 3 to 5's keys and the orphan's: turns 3 and 4 ended at once, in one generation.
      expect(catchUp.trackedParts).toBe(4);
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps a part whose start waits in the queue behind a held end, however many turns", () => {
    vi.useFakeTimers();
    try {
      const out: CanonicalEvent[] = [];
      const catchUp = new DeltaCatchUp((e) => out.push(e));
      catchUp.liveConnected();
      const [a, b, c] = [partId(100), partId(101), partId(102)];
      const text = (id: string, turnId: string, value: string) => {
        catchUp.push(event("text.started", { partId: id, stepId: "s" }, turnId));
        catchUp.push(event("text.ended", { partId: id, stepId: "s", text: value }, turnId));
      };
      const delta = (id: string, piece: string) =>
        catchUp.push(event("text.delta", { partId: id, delta: piece }, "turn_x"));
      // A's end waits for its last deltas; three turns queue behind it.
      catchUp.push(event("text.started", { partId: a, stepId: "s" }, "t0"));
      delta(a, "ab");
      catchUp.push(event("text.ended", { partId: a, stepId: "s", text: "abcd" }, "t0"));
      catchUp.push(event("turn.ended", { outcome: "completed" }, "t0"));
      text(b, "t1", "x");
      catchUp.push(event("turn.ended", { outcome: "completed" }, "t1"));
      catchUp.push(event("text.started", { partId: c, stepId: "s" }, "t2"));
      // The clock passes the orphan bound, the held end's timers do not fire (a longer hold).
      vi.setSystemTime(Date.now() + ORPHAN_AFTER_MS);
      delta(a, "cd"); // A completes: t0 ends, B's end now waits
      delta(b, "x"); // B completes: t1 ends, with C's start still queued
      delta(c, "hel");
      delta(c, "lo");
      catchUp.push(event("text.ended", { partId: c, stepId: "s", text: "hello" }, "t2"));
      catchUp.push(event("turn.ended", { outcome: "completed" }, "t2"));
      const deltasOf = (id: string) =>
        out.flatMap((e) => (e.type === "text.delta" && e.data.partId === id ? [e.data.delta] : []));
      expect(deltasOf(c).join("")).toBe("hello");
      expect(out.at(-1)?.type).toBe("turn.ended");
      expect(catchUp.stats()).toMatchObject({ droppedDeltas: 0, completedParts: 0 });
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps early deltas of a part while a durable stream catches up several turns at once", () => {
    vi.useFakeTimers();
    try {
      const { out, catchUp } = setUp();
      const late = partId(200);
      // The live stream is turns ahead: the part's deltas come before three turns' ends.
      catchUp.push(event("text.delta", { partId: late, delta: "he" }, "t9"));
      catchUp.push(event("text.delta", { partId: late, delta: "y" }, "t9"));
      for (let turn = 0; turn < 3; turn++) wholeTurn(catchUp, 300 + turn, 1, 0);
      vi.advanceTimersByTime(1_000);
      catchUp.push(event("text.started", { partId: late, stepId: "s" }, "t9"));
      catchUp.push(event("text.ended", { partId: late, stepId: "s", text: "hey" }, "t9"));
      expect(out.slice(-3)).toEqual(["text.delta", "text.delta", "text.ended"]);
      expect(catchUp.stats().droppedDeltas).toBe(0);
    } finally {
      vi.useRealTimers();
    }
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
    vi.useFakeTimers();
    try {
      const { catchUp } = setUp();
      const turns = 1_500;
      for (let turn = 1; turn <= turns; turn++) {
        cutShort(catchUp, turn);
        vi.setSystemTime(Date.now() + DELTA_MAX_HOLD_MS);
        catchUp.abandonTurn(`t${turn}`);
      }
      // The last two turns' parts, not one part per turn the session ever abandoned.
      expect(catchUp.trackedParts).toBeLessThanOrEqual(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it("leaves the parts of other turns alone", () => {
    const { out, catchUp } = setUp();
    cutShort(catchUp, 1);
    catchUp.abandonTurn("t2");
    catchUp.push(event("text.delta", { partId: "p1", delta: " more" }, "t1"));
    expect(out).toEqual(["text.started", "text.delta", "text.delta"]);
  });
});
