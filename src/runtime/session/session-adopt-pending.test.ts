/**
 * Adopting a session whose bridge died after an input was admitted upstream and before its turn
 * started (found by the reliability suite's bridge-sigkill scenario: a SIGKILL landed there).
 * The turn is coming: the adopted session hands it out as its running turn (pending), counts as
 * busy until it starts, and the turn ends once when it does.
 */
import { describe, expect, it } from "vitest";
import { serveShapedSession } from "../../../test/support/serve-shaped-backend.js";
import { canonical } from "../../events/build.js";
import type { CanonicalEvent, CanonicalEventOf, CanonicalType } from "../../events/canonical.js";
import { turnIdFor } from "../../events/turn-state.js";

const SESSION = "ses_adopt_pending";

/** Kept events as the store hands them back: numbered, from `source` (a backend's, or the runtime's). */
function kept(
  specs: { turnId: string; type: CanonicalType; data: unknown; source?: string }[],
): CanonicalEvent[] {
  return specs.map(({ turnId, type, data, source }, index) => {
    const native = { backend: "serve" as const, type: source ?? type, id: `kept_${index}` };
    const origin = { sessionId: SESSION, turnId, at: 1, native };
    const event = canonical(origin, 0, type, data as CanonicalEventOf<typeof type>["data"]);
    return { ...event, seq: index + 1 };
  });
}

const admitted = (inputId: string, source?: string) => ({
  turnId: turnIdFor(inputId),
  type: "input.admitted" as const,
  data: { inputId, text: inputId, delivery: "queue" },
  ...(source === undefined ? {} : { source }),
});

describe("Session adopted with an input admitted upstream, its turn not started", () => {
  it("hands the turn out as running (pending), busy, and ends it once when it comes", async () => {
    const events = kept([admitted("in_1")]);
    const { session, backend } = serveShapedSession(SESSION, { resume: { events, cursor: "1" } });
    const turn = session.runningTurn;
    expect(turn?.id).toBe(turnIdFor("in_1"));
    expect(turn?.state).toBe("pending");
    expect(session.idleSince).toBeUndefined();

    backend.emit(turnIdFor("in_1"), "turn.started", { inputId: "in_1" });
    backend.emit(turnIdFor("in_1"), "input.delivered", { inputId: "in_1" });
    backend.emit(turnIdFor("in_1"), "turn.ended", { outcome: "completed", text: "done" });
    expect(await turn?.done()).toMatchObject({ outcome: "completed", text: "done" });
    expect(session.runningTurn).toBeUndefined();
    const ends = (await session.transcript()).filter((event) => event.type === "turn.ended");
    expect(ends).toHaveLength(1);
    await session.close();
  });

  it("waits for no input whose turn ended, or that only the runtime held (never sent)", async () => {
    const events = kept([
      admitted("in_1"),
      { turnId: turnIdFor("in_1"), type: "turn.started", data: { inputId: "in_1" } },
      { turnId: turnIdFor("in_1"), type: "turn.ended", data: { outcome: "completed" } },
      admitted("in_held", "runtime.queue"),
    ]);
    const { session } = serveShapedSession(SESSION, { resume: { events, cursor: "3" } });
    expect(session.runningTurn).toBeUndefined();
    expect(session.idleSince).toBeDefined();
    await session.close();
  });
});
