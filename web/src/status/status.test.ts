import type { Usage } from "opencode-bridge/client";
import { describe, expect, it } from "vitest";
import { awayChange, type Seen } from "./away-change.js";
import { usageLine, usageTokens } from "./usage-text.js";

const seen = (running: string | undefined, asks: string[] = [], sessionId = "ses_1"): Seen => ({
  sessionId,
  running,
  asks: new Set(asks),
});

describe("awayChange", () => {
  it("says nothing at the first look at a session, or another's", () => {
    expect(awayChange(undefined, seen(undefined))).toBeUndefined();
    expect(awayChange(seen("turn_1", [], "ses_0"), seen(undefined))).toBeUndefined();
  });

  it("hears a turn's end, and a queued turn's start as the end of the one before", () => {
    expect(awayChange(seen("turn_1"), seen(undefined))).toBe("ended");
    expect(awayChange(seen("turn_1"), seen("turn_2"))).toBe("ended");
    expect(awayChange(seen("turn_1"), seen("turn_1"))).toBeUndefined();
    expect(awayChange(seen(undefined), seen("turn_1"))).toBeUndefined();
  });

  it("hears a new ask first, and not one that was already waiting", () => {
    expect(awayChange(seen("turn_1"), seen("turn_1", ["per_1"]))).toBe("asked");
    expect(awayChange(seen("turn_1", ["per_1"]), seen("turn_1", ["per_1"]))).toBeUndefined();
    expect(awayChange(seen("turn_1", ["per_1"]), seen("turn_1"))).toBeUndefined();
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
