import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { canonical } from "./build.js";
import type { CanonicalEvent, CanonicalEventOf, CanonicalType } from "./canonical.js";
import { DeltaCatchUp, type DeltaCatchUpOptions } from "./delta-catch-up.js";

let n = 0;
function event<T extends CanonicalType>(
  type: T,
  data: CanonicalEventOf<T>["data"],
  turnId: string | undefined = "t1",
): CanonicalEvent {
  const origin = {
    sessionId: "s",
    turnId,
    at: 0,
    native: { backend: "serve" as const, type, id: `e${n++}` },
  };
  return canonical(origin, 0, type, data);
}

const started = (partId: string, turnId?: string) =>
  event("text.started", { partId, stepId: "step" }, turnId);
const delta = (partId: string, text: string, turnId?: string) =>
  event("text.delta", { partId, delta: text }, turnId);
const ended = (partId: string, text: string, turnId?: string) =>
  event("text.ended", { partId, stepId: "step", text }, turnId);
const turnEnded = (turnId = "t1") =>
  event("turn.ended", { outcome: "completed", text: "" }, turnId);

/** A catch-up whose output is written down as short strings: `delta p:hel@t1`, `text.ended p`. */
function setUp(options: DeltaCatchUpOptions = {}) {
  const out: string[] = [];
  const catchUp = new DeltaCatchUp((e) => {
    if (e.type === "text.delta") out.push(`delta ${e.data.partId}:${e.data.delta}@${e.turnId}`);
    else if (e.type === "text.ended" || e.type === "text.started")
      out.push(`${e.type} ${e.data.partId}`);
    else out.push(e.type);
  }, options);
  catchUp.liveConnected();
  return { out, catchUp };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("DeltaCatchUp", () => {
  it("holds a part's end, and what follows it, until its deltas are all out", () => {
    const { out, catchUp } = setUp();
    catchUp.push(started("p"));
    catchUp.push(delta("p", "hel"));
    catchUp.push(ended("p", "hello"));
    catchUp.push(turnEnded());
    expect(out).toEqual(["text.started p", "delta p:hel@t1"]);
    catchUp.push(delta("p", "lo"));
    expect(out).toEqual([
      "text.started p",
      "delta p:hel@t1",
      "delta p:lo@t1",
      "text.ended p",
      "turn.ended",
    ]);
    expect(catchUp.stats()).toEqual({
      completedParts: 0,
      incompleteParts: 0,
      droppedDeltas: 0,
      liveReconnects: 0,
    });
  });

  it("lets a delta that came before its part's start go right after it, in the start's turn", () => {
    const { out, catchUp } = setUp();
    // The live stream is a turn ahead: the normaliser still thinks t1 runs (or none does).
    catchUp.push(delta("q", "one ", "t1"));
    catchUp.push(delta("q", "two", undefined));
    expect(out).toEqual([]);
    catchUp.push(started("q", "t2"));
    catchUp.push(ended("q", "one two", "t2"));
    expect(out).toEqual(["text.started q", "delta q:one @t2", "delta q:two@t2", "text.ended q"]);
  });

  it("after the bound hands out the missing tail from the end, then the end; late deltas repeat it", () => {
    const { out, catchUp } = setUp({ idleMs: 1_000 });
    catchUp.push(started("p"));
    catchUp.push(delta("p", "hel"));
    catchUp.push(ended("p", "hello"));
    catchUp.push(turnEnded());
    vi.advanceTimersByTime(999);
    expect(out).toEqual(["text.started p", "delta p:hel@t1"]);
    vi.advanceTimersByTime(1);
    expect(out).toEqual([
      "text.started p",
      "delta p:hel@t1",
      "delta p:lo@t1",
      "text.ended p",
      "turn.ended",
    ]);
    // The live side catches up later: its text already went out.
    catchUp.push(delta("p", "lo"));
    expect(out).toHaveLength(5);
    expect(catchUp.stats()).toEqual({
      completedParts: 1,
      incompleteParts: 0,
      droppedDeltas: 0,
      liveReconnects: 0,
    });
  });

  it("after the bound lets an end go that its deltas do not begin, counts it, and drops its late deltas", () => {
    const { out, catchUp } = setUp({ idleMs: 1_000 });
    catchUp.push(started("p"));
    catchUp.push(delta("p", "help"));
    catchUp.push(ended("p", "hello"));
    vi.advanceTimersByTime(1_000);
    expect(out).toEqual(["text.started p", "delta p:help@t1", "text.ended p"]);
    catchUp.push(delta("p", "o"));
    expect(out).toHaveLength(3);
    expect(catchUp.stats()).toEqual({
      completedParts: 0,
      incompleteParts: 1,
      droppedDeltas: 1,
      liveReconnects: 0,
    });
  });

  it("lets an end go at once when the deltas handed out do not begin its value (found by the reliability suite)", () => {
    // A bridge that adopts a turn after a crash connects its live stream mid-part: the part's
    // first deltas were sent before, so no later delta can make the value whole. Holding the
    // end (and the turn's end behind it) for the bound only made the adopted turn end late.
    const { out, catchUp } = setUp({ idleMs: 1_000 });
    catchUp.push(started("p"));
    catchUp.push(delta("p", "lo"));
    catchUp.push(ended("p", "hello"));
    catchUp.push(turnEnded());
    expect(out).toEqual(["text.started p", "delta p:lo@t1", "text.ended p", "turn.ended"]);
    expect(catchUp.stats()).toMatchObject({ completedParts: 0, incompleteParts: 1 });
  });

  it("keeps waiting while the live stream keeps delivering, up to the maximum", () => {
    const { out, catchUp } = setUp({ idleMs: 1_000, maxHoldMs: 5_000 });
    catchUp.push(started("p"));
    catchUp.push(ended("p", "x".repeat(100)));
    catchUp.push(started("other"));
    for (let step = 0; step < 4; step++) {
      vi.advanceTimersByTime(900);
      catchUp.push(delta("p", "x"));
    }
    expect(out.at(-1)).toBe("delta p:x@t1");
    expect(out).not.toContain("text.ended p");
    vi.advanceTimersByTime(999);
    expect(out).not.toContain("text.ended p");
    vi.advanceTimersByTime(1);
    expect(out.slice(-2)).toEqual(["text.ended p", "text.started other"]);

    // However busy the live stream, the end goes at the maximum.
    catchUp.push(ended("other", "never"));
    for (let step = 0; step < 5; step++) {
      vi.advanceTimersByTime(999);
      catchUp.push(delta("unrelated", "x"));
    }
    expect(out.at(-1)).toBe("text.started other");
    vi.advanceTimersByTime(5);
    expect(out.at(-1)).toBe("text.ended other");
    expect(catchUp.stats()).toMatchObject({ completedParts: 2, incompleteParts: 0 });
  });

  it("bounds each part on its own: a later part waits for an earlier one only while that one waits", () => {
    const { out, catchUp } = setUp({ idleMs: 1_000 });
    catchUp.push(started("a"));
    catchUp.push(started("b"));
    catchUp.push(ended("a", "slow"));
    vi.advanceTimersByTime(500);
    catchUp.push(delta("b", "quick"));
    catchUp.push(ended("b", "quick"));
    catchUp.push(turnEnded());
    expect(out).toEqual(["text.started a", "text.started b", "delta b:quick@t1"]);
    // b's delta showed the live stream still delivering: a's quiet time starts again.
    vi.advanceTimersByTime(999);
    expect(out).toHaveLength(3);
    vi.advanceTimersByTime(1);
    // a's bound passed; b was whole, so it goes at once, and the turn's end after both.
    expect(out.slice(3)).toEqual(["delta a:slow@t1", "text.ended a", "text.ended b", "turn.ended"]);
    expect(catchUp.stats()).toEqual({
      completedParts: 1,
      incompleteParts: 0,
      droppedDeltas: 0,
      liveReconnects: 0,
    });

    // Two incomplete parts: each goes at its own bound, not at a bound for the turn.
    catchUp.push(started("c", "t2"));
    catchUp.push(started("d", "t2"));
    catchUp.push(ended("c", "c!", "t2"));
    vi.advanceTimersByTime(600);
    catchUp.push(ended("d", "d!", "t2"));
    catchUp.push(turnEnded("t2"));
    vi.advanceTimersByTime(400);
    expect(out.slice(-1)).toEqual(["text.ended c"]);
    vi.advanceTimersByTime(599);
    expect(out.slice(-1)).toEqual(["text.ended c"]);
    vi.advanceTimersByTime(1);
    expect(out.slice(-2)).toEqual(["text.ended d", "turn.ended"]);
  });

  it("compares what was handed out with the ended value, not only lengths", () => {
    const { out, catchUp } = setUp();
    catchUp.push(started("p"));
    // Decomposed é (two code units) where the end says precomposed é plus one more letter.
    catchUp.push(delta("p", "e\u0301"));
    catchUp.push(ended("p", "\u00e9x"));
    expect(out.at(-1)).toBe("text.ended p");
    expect(catchUp.stats()).toEqual({
      completedParts: 0,
      incompleteParts: 1,
      droppedDeltas: 0,
      liveReconnects: 0,
    });
  });

  it("holds nothing while the live stream never connected", () => {
    const out: string[] = [];
    const catchUp = new DeltaCatchUp((e) => out.push(e.type));
    catchUp.push(started("p"));
    catchUp.push(ended("p", "hello"));
    expect(out).toEqual(["text.started", "text.delta", "text.ended"]);
    expect(catchUp.stats()).toEqual({
      completedParts: 1,
      incompleteParts: 0,
      droppedDeltas: 0,
      liveReconnects: 0,
    });
  });

  it("holds nothing for a part that began before the live stream reconnected", () => {
    const { out, catchUp } = setUp();
    catchUp.push(started("p"));
    catchUp.push(delta("p", "he"));
    catchUp.liveConnected();
    // Sent after a gap (the "l" before it was lost with the old connection): handed out, it
    // would leave a hole in the text; the rest goes out from the part's end instead.
    catchUp.push(delta("p", "lo"));
    catchUp.push(ended("p", "hello"));
    expect(out).toEqual(["text.started p", "delta p:he@t1", "delta p:llo@t1", "text.ended p"]);
    // A reconnect while an end waits lets it go at once; it lost its tail only: made up.
    catchUp.push(started("q"));
    catchUp.push(ended("q", "gone"));
    expect(out.at(-1)).toBe("text.started q");
    catchUp.liveConnected();
    expect(out.slice(-2)).toEqual(["delta q:gone@t1", "text.ended q"]);
    expect(catchUp.stats()).toEqual({
      completedParts: 2,
      incompleteParts: 0,
      droppedDeltas: 1,
      liveReconnects: 2,
    });
    // A part that starts after the reconnect is held as usual.
    catchUp.push(started("r"));
    catchUp.push(ended("r", "r"));
    expect(out.at(-1)).toBe("text.started r");
  });

  it("holds nothing for a part whose start it never saw (a stream resumed mid-part)", () => {
    const { out, catchUp } = setUp();
    catchUp.push(delta("p", "lo", undefined));
    catchUp.push(ended("p", "hello", "t1"));
    expect(out).toEqual(["delta p:lo@t1", "text.ended p"]);
    expect(catchUp.stats()).toEqual({
      completedParts: 0,
      incompleteParts: 1,
      droppedDeltas: 0,
      liveReconnects: 0,
    });
  });

  it("with idleMs 0 (one ordered stream) holds nothing but still completes, counts and drops", () => {
    const { out, catchUp } = setUp({ idleMs: 0 });
    catchUp.push(started("p"));
    catchUp.push(delta("p", "h"));
    catchUp.push(ended("p", "hi"));
    catchUp.push(delta("p", "i"));
    expect(out).toEqual(["text.started p", "delta p:h@t1", "delta p:i@t1", "text.ended p"]);
    catchUp.push(started("q"));
    catchUp.push(delta("q", "x"));
    catchUp.push(ended("q", "hi"));
    catchUp.push(delta("q", "i"));
    expect(out.slice(4)).toEqual(["text.started q", "delta q:x@t1", "text.ended q"]);
    expect(catchUp.stats()).toEqual({
      completedParts: 1,
      incompleteParts: 1,
      droppedDeltas: 1,
      liveReconnects: 0,
    });
  });

  it("waits for nothing on kinds the surface does not stream", () => {
    const { out, catchUp } = setUp({ kinds: ["text"] });
    catchUp.push(event("tool.input.started", { callId: "c", tool: "bash" }));
    catchUp.push(event("tool.input.ended", { callId: "c", input: "{}" }));
    expect(out).toEqual(["tool.input.started", "tool.input.ended"]);
    expect(catchUp.stats()).toEqual({
      completedParts: 0,
      incompleteParts: 0,
      droppedDeltas: 0,
      liveReconnects: 0,
    });
  });

  it("tracks reasoning and tool input by their own ids", () => {
    const { out, catchUp } = setUp();
    catchUp.push(event("reasoning.started", { partId: "r" }));
    catchUp.push(event("tool.input.started", { callId: "c", tool: "bash" }));
    catchUp.push(event("reasoning.ended", { partId: "r", text: "hm" }));
    catchUp.push(event("tool.input.ended", { callId: "c", input: "{}" }));
    expect(out).toEqual(["reasoning.started", "tool.input.started"]);
    catchUp.push(event("tool.input.delta", { callId: "c", delta: "{}" }));
    expect(out).toHaveLength(3);
    catchUp.push(event("reasoning.delta", { partId: "r", delta: "hm" }));
    expect(out).toEqual([
      "reasoning.started",
      "tool.input.started",
      "tool.input.delta",
      "reasoning.delta",
      "reasoning.ended",
      "tool.input.ended",
    ]);
  });

  it("after a turn's end drops the late deltas of its parts that never ended", () => {
    const { out, catchUp } = setUp();
    catchUp.push(started("p"));
    catchUp.push(delta("p", "cut "));
    catchUp.push(turnEnded());
    catchUp.push(delta("p", "short"));
    expect(out).toEqual(["text.started p", "delta p:cut @t1", "turn.ended"]);
    expect(catchUp.stats()).toEqual({
      completedParts: 0,
      incompleteParts: 0,
      droppedDeltas: 1,
      liveReconnects: 0,
    });
  });

  it("on flush lets everything go, in order, drops what waits for a start, and holds nothing after", () => {
    const { out, catchUp } = setUp();
    catchUp.push(started("p1"));
    catchUp.push(ended("p1", "one"));
    catchUp.push(turnEnded());
    catchUp.push(delta("p2", "never started"));
    catchUp.flush();
    expect(out).toEqual(["text.started p1", "delta p1:one@t1", "text.ended p1", "turn.ended"]);
    expect(catchUp.stats()).toEqual({
      completedParts: 1,
      incompleteParts: 0,
      droppedDeltas: 1,
      liveReconnects: 0,
    });
    catchUp.push(ended("p3", "three"));
    expect(out.at(-1)).toBe("text.ended p3");
  });
});

/** The event with OpenCode's ascending native id: 12 hex digits of time, then a tail. */
function dated(event: CanonicalEvent, digits: string): CanonicalEvent {
  return { ...event, native: { backend: "serve", type: event.type, id: `evt_${digits}abc` } };
}

describe("DeltaCatchUp, live connections dated by the first event they passed on", () => {
  const HEARD = "231400000000";
  const BEFORE = "2313ffffffff";
  const AFTER = "231400000001";
  const heard = `evt_${HEARD}x`;

  it("streams a part that started after the connection's first event, as before", () => {
    const { out, catchUp } = setUp();
    catchUp.liveHeard(heard);
    catchUp.push(delta("p", "hel"));
    catchUp.push(dated(started("p"), AFTER));
    catchUp.push(ended("p", "hello"));
    expect(out).toEqual(["text.started p", "delta p:hel@t1"]);
    catchUp.push(delta("p", "lo"));
    expect(out.at(-1)).toBe("text.ended p");
    expect(catchUp.stats()).toMatchObject({ completedParts: 0, droppedDeltas: 0 });
  });

  it("hands out a part that started before the connection's first event from its end, at once: its first deltas never came on it", () => {
    // A cut just as the part began: its first deltas went while the live stream was away (or
    // before the new connection delivered), and it is first seen after the reconnection.
    const { out, catchUp } = setUp();
    catchUp.liveHeard(heard);
    catchUp.push(delta("p", "lo "));
    catchUp.push(dated(started("p"), BEFORE));
    catchUp.push(delta("p", "world"));
    expect(out).toEqual(["text.started p"]);
    // Its end waits for nothing (no timer is advanced): no delta can make it whole.
    catchUp.push(ended("p", "hello world"));
    expect(out).toEqual(["text.started p", "delta p:hello world@t1", "text.ended p"]);
    expect(catchUp.stats()).toMatchObject({
      completedParts: 1,
      incompleteParts: 0,
      droppedDeltas: 2,
    });
  });

  it("dates a part that started before the connection passed anything on by the first event it passes on (the reliability suite's lost first deltas)", () => {
    // OpenCode makes `server.connected` before its subscription delivers: the reply started
    // after that event, its first deltas were made before the subscription delivered and never
    // came, and the first event the connection passed on was a later delta of the part.
    const { out, catchUp } = setUp();
    catchUp.push(dated(started("p"), BEFORE));
    expect(out).toEqual(["text.started p"]);
    catchUp.liveHeard(`evt_${AFTER}x`);
    catchUp.push(dated(delta("p", " tok7"), AFTER));
    catchUp.push(ended("p", "tok1 tok2 tok3 tok4 tok5 tok6 tok7"));
    expect(out).toEqual([
      "text.started p",
      "delta p:tok1 tok2 tok3 tok4 tok5 tok6 tok7@t1",
      "text.ended p",
    ]);
    expect(catchUp.stats()).toMatchObject({ completedParts: 1, droppedDeltas: 1 });
  });

  it("a part's end waits while the connection has passed nothing on, and goes once the first event dates the part", () => {
    const { out, catchUp } = setUp();
    catchUp.push(dated(started("p"), BEFORE));
    catchUp.push(ended("p", "whole"));
    catchUp.push(turnEnded());
    expect(out).toEqual(["text.started p"]);
    catchUp.liveHeard(heard);
    expect(out).toEqual(["text.started p", "delta p:whole@t1", "text.ended p", "turn.ended"]);
  });

  it("dates the parts against the current connection only: a reconnect forgets the first event heard", () => {
    const { out, catchUp } = setUp();
    catchUp.liveHeard(heard);
    catchUp.liveConnected();
    // Newer than the last connection's first event, but the new one passed nothing on yet.
    catchUp.push(dated(started("p"), AFTER));
    catchUp.liveHeard(`evt_${AFTER}y`);
    catchUp.push(dated(delta("p", "lo"), AFTER));
    catchUp.push(ended("p", "hello"));
    expect(out).toEqual(["text.started p", "delta p:hello@t1", "text.ended p"]);
  });

  it("concludes nothing when an id is not of the ascending shape: the end waits as before", () => {
    const { out, catchUp } = setUp();
    catchUp.liveHeard("heard");
    catchUp.push(dated(started("p"), BEFORE));
    catchUp.push(ended("p", "whole"));
    expect(out).toEqual(["text.started p"]);
  });
});
