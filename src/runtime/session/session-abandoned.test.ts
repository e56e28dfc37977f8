/**
 * The turns a session ended itself (here: its server died) drop their late native events; it
 * remembers only the latest such turns, so that a long session does not grow with them.
 */
import { describe, expect, it } from "vitest";
import { serveShapedSession } from "../../../test/support/serve-shaped-backend.js";

const CRASH = { code: 1, signal: null, logTail: [], expected: false };

describe("Session, turns it ended itself", () => {
  it("drops late events of the latest such turns and forgets the oldest", async () => {
    const { session, backend } = serveShapedSession("ses_abandoned");
    const turnIds: string[] = [];
    for (let n = 0; n < 40; n++) {
      const turn = await session.send(`turn ${n}`, { delivery: "queue" });
      session.serverExited(CRASH);
      expect((await turn.done()).outcome).toBe("failed");
      turnIds.push(turn.id);
    }
    const late = (turnId: string, partId: string) =>
      backend?.emit(turnId, "text.ended", { partId, stepId: "step", text: "late" });
    late(turnIds[0] ?? "", "p_oldest");
    late(turnIds.at(-1) ?? "", "p_latest");
    const parts = (await session.transcript()).flatMap((event) =>
      event.type === "text.ended" ? [event.data.partId] : [],
    );
    // The latest abandoned turn is still known (its late event dropped); the oldest of 40 is not.
    expect(parts).toEqual(["p_oldest"]);
    await session.close();
  });
});
