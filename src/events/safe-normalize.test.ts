import { describe, expect, it } from "vitest";
import { parseApiEvent } from "../opencode-protocol/api/events.js";
import type { Parsed } from "../opencode-protocol/common.js";
import { parseSafely } from "../opencode-protocol/parse-safely.js";
import { parseRunLine } from "../opencode-protocol/run/events.js";
import { initialApiState, normalizeApiEvent } from "./normalize-api.js";
import { normalizeSafely } from "./safe-normalize.js";

const SEEN = { backend: "serve", seenAt: 1_800_000_000_000 } as const;

describe("normalizeSafely", () => {
  it("turns a normaliser's throw into native.unknown with the error, the state kept", () => {
    const state = initialApiState("ses_1");
    // Known by type but not in the shape the normaliser relies on: it throws on `.model`.
    const odd = {
      known: true,
      event: { type: "session.next.step.started", id: "evt_9", data: {} },
    } as unknown as Parsed<never>;
    const result = normalizeSafely(normalizeApiEvent, state, odd, SEEN);
    expect(result.state).toBe(state);
    expect(result.events).toHaveLength(1);
    expect(result.events[0]).toMatchObject({
      id: "evt_9#0",
      type: "native.unknown",
      sessionId: "ses_1",
      at: SEEN.seenAt,
      durable: true,
      data: { nativeType: "session.next.step.started", raw: odd.event },
      native: { backend: "serve", type: "session.next.step.started", id: "evt_9" },
    });
    const data = result.events[0]?.data as { error?: string } | undefined;
    expect(data?.error).toMatch(/providerID|undefined/);
  });

  it("says why an event that failed its schema is unknown", () => {
    const parsed = parseApiEvent({ type: "session.next.prompted", id: "evt_1", data: {} });
    const result = normalizeSafely(normalizeApiEvent, initialApiState("ses_1"), parsed, SEEN);
    expect(result.events[0]?.type).toBe("native.unknown");
    expect((result.events[0]?.data as { error?: string } | undefined)?.error).toMatch(/messageID/);
  });

  it("stamps an event that has no time of its own (a 1.18 ask) with the time it was seen", () => {
    const parsed = parseApiEvent({
      type: "permission.v2.asked",
      id: "evt_2",
      data: { id: "per_1", sessionID: "ses_1", action: "edit", resources: ["a.txt"] },
    });
    expect(normalizeApiEvent(initialApiState("ses_1"), parsed).events[0]?.at).toBe(0);
    const result = normalizeSafely(normalizeApiEvent, initialApiState("ses_1"), parsed, SEEN);
    expect(result.events[0]).toMatchObject({ type: "permission.asked", at: SEEN.seenAt });
  });
});

describe("parseSafely", () => {
  it("passes a frame its parser refuses through as unknown, with the reason", () => {
    const parsed = parseSafely(parseRunLine, { notAType: 1 });
    expect(parsed).toMatchObject({ known: false, event: { type: "unparsed" } });
    expect(parsed.known ? [] : parsed.issues).toHaveLength(1);
  });
});
