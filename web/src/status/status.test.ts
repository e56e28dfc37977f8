import type { Usage } from "opencode-bridge/client";
import { describe, expect, it } from "vitest";
import { awayChange, awayChanges, looksNow, type Seen } from "./away-change.js";
import { usageLine, usageTokens } from "./usage-text.js";

const seen = (
  running: string | true | undefined,
  asks: string[] = [],
  sessionId = "ses_1",
  seq = 1,
): Seen => ({ sessionId, running, asks: new Set(asks), seq });

describe("awayChange", () => {
  it("says nothing at the first look at a session, or another's", () => {
    expect(awayChange(undefined, seen(undefined))).toBeUndefined();
    expect(awayChange(undefined, seen(undefined, ["per_1"]))).toBeUndefined();
    expect(awayChange(seen("turn_1", [], "ses_0"), seen(undefined))).toBeUndefined();
  });

  it("hears a turn's end, and a queued turn's start as the end of the one before", () => {
    expect(awayChange(seen("turn_1"), seen(undefined))).toBe("ended");
    expect(awayChange(seen("turn_1"), seen("turn_2"))).toBe("ended");
    expect(awayChange(seen("turn_1"), seen("turn_1"))).toBeUndefined();
    expect(awayChange(seen(undefined), seen("turn_1"))).toBeUndefined();
  });

  it("hears the end of a turn a listed entry says runs, not which one runs", () => {
    expect(awayChange(seen(true), seen(undefined))).toBe("ended");
    expect(awayChange(seen(true), seen(true))).toBeUndefined();
    // The open session's look and its entry's name the same turn differently: no change.
    expect(awayChange(seen("turn_1"), seen(true))).toBeUndefined();
    expect(awayChange(seen(true), seen("turn_1"))).toBeUndefined();
  });

  it("hears a new ask first, and not one that was already waiting", () => {
    expect(awayChange(seen("turn_1"), seen("turn_1", ["per_1"]))).toBe("asked");
    expect(awayChange(seen("turn_1", ["per_1"]), seen("turn_1", ["per_1"]))).toBeUndefined();
    expect(awayChange(seen("turn_1", ["per_1"]), seen("turn_1"))).toBeUndefined();
  });

  it("takes nothing from a look older than the one before", () => {
    expect(awayChange(seen(undefined, [], "ses_1", 9), seen(true, [], "ses_1", 7))).toBeUndefined();
    expect(awayChange(seen("turn_1", [], "ses_1", 9), seen(undefined, [], "ses_1", 7))).toBe(
      undefined,
    );
  });
});

describe("awayChanges", () => {
  const fold = (before: Seen[], now: Seen[]) =>
    awayChanges(new Map(before.map((look) => [look.sessionId, look])), now);

  it("says nothing of what the page first sees, however many sessions ended or wait", () => {
    const first = fold([], [seen(undefined, [], "a"), seen(undefined, ["per_1"], "b")]);
    expect(first.changes).toEqual([]);
    expect([...first.seen.keys()]).toEqual(["a", "b"]);
  });

  it("says each session's change once", () => {
    const before = [seen(true, [], "a"), seen(true, [], "b"), seen(undefined, [], "c")];
    const now = [seen(undefined, [], "a"), seen(true, ["per_1"], "b"), seen(undefined, [], "c")];
    const once = fold(before, now);
    expect(once.changes).toEqual([
      { sessionId: "a", change: "ended" },
      { sessionId: "b", change: "asked" },
    ]);
    expect(awayChanges(once.seen, now).changes).toEqual([]);
  });

  it("forgets a session that is gone, and says nothing of it", () => {
    const gone = fold([seen(true, [], "a"), seen(true, [], "b")], [seen(true, [], "b")]);
    expect(gone.changes).toEqual([]);
    expect([...gone.seen.keys()]).toEqual(["b"]);
    // Back in the list later: a first look again.
    expect(awayChanges(gone.seen, [seen(undefined, [], "a")]).changes).toEqual([]);
  });

  it("keeps the newer look when an older one comes after it", () => {
    const newer = seen(undefined, [], "a", 9);
    const kept = fold([newer], [seen(true, [], "a", 7)]);
    expect(kept.seen.get("a")).toBe(newer);
    // The poll catches up: still idle, nothing ended twice.
    expect(awayChanges(kept.seen, [seen(undefined, [], "a", 9)]).changes).toEqual([]);
  });
});

describe("looksNow", () => {
  const entry = (id: string, running: boolean, lastSeq: number) => ({
    id,
    directory: "/p",
    backend: "opencode",
    open: true,
    state: "open" as const,
    running,
    lastSeq,
  });
  const live = (sessionId: string, running: string | undefined, lastSeq: number) =>
    ({
      conversation: { sessionId, lastSeq },
      running,
      pendingAsks: [],
    }) as unknown as Parameters<typeof looksNow>[1];

  it("takes the live conversation's look at its session unless the entry is newer", () => {
    expect(looksNow([entry("a", true, 5), entry("b", true, 3)], live("a", undefined, 6))).toEqual([
      seen(undefined, [], "a", 6),
      seen(true, [], "b", 3),
    ]);
    expect(looksNow([entry("a", false, 8)], live("a", "turn_1", 6))).toEqual([
      seen(undefined, [], "a", 8),
    ]);
    // A deleted session is not looked at: it is forgotten, its end never told.
    expect(looksNow([{ ...entry("a", false, 9), state: "killed" as const }], undefined)).toEqual(
      [],
    );
    // An open child session is in no list: its live look is.
    expect(looksNow([], live("child", "turn_1", 2))).toEqual([seen("turn_1", [], "child", 2)]);
  });
});

describe("usage text", () => {
  const usage: Usage = {
    tokens: { input: 1200, output: 60, reasoning: 0, cacheRead: 300, cacheWrite: 0 },
    cost: 0,
  };

  it("counts input, output and reasoning; cached reads only in the details; no cost when free", () => {
    expect(usageTokens(usage)).toBe(1260);
    expect(usageLine(usage)).toBe("1,260 tokens (1,200 in, 60 out, 300 cached)");
    expect(usageLine({ ...usage, cost: 0.01234 })).toBe(
      "1,260 tokens (1,200 in, 60 out, 300 cached) · $0.0123",
    );
  });
});
