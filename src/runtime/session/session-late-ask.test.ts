/**
 * An ask that reaches the session after its turn ended (the serve backend holds an ask until
 * its tool call shows, and computes a permission's diff first, while the run may be stopped
 * meanwhile) has nobody left to wait on it: it must not stay pending and keep the session
 * busy for good.
 */
import { describe, expect, it } from "vitest";
import { serveShapedSession } from "../../../test/support/serve-shaped-backend.js";

describe("Session, an ask after its turn's end", () => {
  it("is not kept pending, and the session goes idle", async () => {
    const { session, backend } = serveShapedSession("ses_late");
    const turn = await session.send("hi", { delivery: "queue" });
    backend.emit(turn.id, "turn.ended", { outcome: "interrupted", text: "" });
    expect((await turn.done()).outcome).toBe("interrupted");
    backend.emit(turn.id, "permission.asked", {
      requestId: "per_late",
      permission: "edit",
      patterns: ["hello.txt"],
      callId: "call_1",
    });
    expect(session.pendingAsks).toEqual([]);
    expect(session.idleSince).toBeDefined();
    // Still in the transcript: what happened is kept, only nobody waits on it.
    expect((await session.transcript()).map((event) => event.type)).toContain("permission.asked");
    await session.close();
  });

  it("an ask of the running turn is still kept pending", async () => {
    const { session, backend } = serveShapedSession("ses_late");
    const turn = await session.send("hi", { delivery: "queue" });
    backend.emit(turn.id, "permission.asked", {
      requestId: "per_now",
      permission: "edit",
      patterns: ["hello.txt"],
      callId: "call_1",
    });
    expect(session.pendingAsks.map((ask) => ask.requestId)).toEqual(["per_now"]);
    expect(session.idleSince).toBeUndefined();
    await session.close();
  });
});
