/**
 * Adopting a session that went on in a new OpenCode session (`session.rehydrated`) after its own
 * was lost: a turn left running and an input left waiting in the lost one are not waited for
 * (nothing upstream will start or end them); the turn ends `failed` (`upstream-lost`).
 */
import { describe, expect, it } from "vitest";
import { serveShapedSession } from "../../../test/support/serve-shaped-backend.js";
import { canonical } from "../../events/build.js";
import type { CanonicalEvent, CanonicalEventOf, CanonicalType } from "../../events/canonical.js";
import { turnIdFor } from "../../events/turn-state.js";

const SESSION = "ses_rehydrated";

/** Kept events as the store hands them back: numbered. */
function kept(specs: { turnId?: string; type: CanonicalType; data: unknown }[]): CanonicalEvent[] {
  return specs.map(({ turnId, type, data }, index) => {
    const native = { backend: "serve" as const, type, id: `kept_${index}` };
    const origin = { sessionId: SESSION, turnId, at: 1, native };
    const event = canonical(origin, 0, type, data as CanonicalEventOf<typeof type>["data"]);
    return { ...event, seq: index + 1 };
  });
}

const running = turnIdFor("in_1");
const lostMidTurn = [
  {
    turnId: running,
    type: "input.admitted",
    data: { inputId: "in_1", text: "a", delivery: "queue" },
  },
  { turnId: running, type: "turn.started", data: { inputId: "in_1" } },
  {
    turnId: turnIdFor("in_2"),
    type: "input.admitted",
    data: { inputId: "in_2", text: "b", delivery: "queue" },
  },
] as const;

describe("Session adopted after a continuation in a new OpenCode session", () => {
  it("ends a turn of the lost OpenCode session failed (upstream-lost) and waits for none of its inputs", async () => {
    const events = kept([
      ...lostMidTurn,
      {
        type: "session.rehydrated",
        data: { previousUpstreamId: SESSION, upstreamId: "ses_new" },
      },
    ]);
    const { session } = serveShapedSession(SESSION, { resume: { events, cursor: "0" } });
    await session.settled();
    expect(session.runningTurn).toBeUndefined();
    expect(session.idleSince).toBeDefined();
    const end = (await session.transcript()).find((event) => event.type === "turn.ended");
    expect(end).toMatchObject({
      turnId: running,
      data: { outcome: "failed", reason: "upstream-lost" },
    });
    await session.close();
  });

  it("without the continuation, the same turn is adopted as running", async () => {
    const { session } = serveShapedSession(SESSION, {
      resume: { events: kept([...lostMidTurn]), cursor: "2" },
    });
    expect(session.runningTurn?.id).toBe(running);
    await session.close();
  });
});
