/** The turns a session knows: made when named, told their events, the oldest ended ones forgotten. */
import { describe, expect, it } from "vitest";
import { canonicalEvent as event } from "../../../test/support/canonical-event.js";
import { EventLog } from "./event-log.js";
import { SessionTurns } from "./session-turns.js";

const admitted = (turnId: string, inputId: string) =>
  event(turnId, "input.admitted", { inputId, text: "hi", delivery: "queue" });

describe("SessionTurns", () => {
  it("makes a turn when first named and gives the same one after", () => {
    const turns = new SessionTurns(new EventLog());
    expect(turns.byId("turn_a")).toBe(turns.byId("turn_a"));
    expect(turns.byId("turn_a").state).toBe("pending");
  });

  it("hands each event to its turn, and learns which turn an input joined", () => {
    const turns = new SessionTurns(new EventLog());
    turns.deliver(admitted("turn_a", "in_1"));
    turns.deliver(event("turn_a", "turn.started", { inputId: "in_1" }));
    turns.deliver(event("turn_a", "input.delivered", { inputId: "in_2" }));
    expect(turns.ofInput("in_1")).toBe(turns.byId("turn_a"));
    expect(turns.ofInput("in_2")).toBe(turns.byId("turn_a"));
    expect(turns.byId("turn_a").state).toBe("running");
    turns.deliver(event("turn_a", "turn.ended", { outcome: "completed", text: "done" }));
    expect(turns.hasEnded("turn_a")).toBe(true);
    // An event of no turn goes to none.
    turns.deliver(event(undefined, "session.updated", { title: "t" }));
  });

  it("ignores events of a turn that ended", async () => {
    const turns = new SessionTurns(new EventLog());
    turns.deliver(event("turn_a", "turn.started", {}));
    turns.deliver(event("turn_a", "turn.ended", { outcome: "completed", text: "first" }));
    turns.deliver(event("turn_a", "turn.ended", { outcome: "failed", text: "late" }));
    expect(await turns.byId("turn_a").done()).toMatchObject({ outcome: "completed" });
  });

  it("forgets the oldest ended turns beyond the few it keeps, and their inputs", () => {
    const turns = new SessionTurns(new EventLog(), 2);
    const old = turns.byId("turn_0");
    for (const n of [0, 1, 2]) {
      turns.deliver(admitted(`turn_${n}`, `in_${n}`));
      turns.deliver(event(`turn_${n}`, "turn.started", { inputId: `in_${n}` }));
      turns.deliver(event(`turn_${n}`, "turn.ended", { outcome: "completed", text: "" }));
    }
    expect(turns.ofInput("in_0")).toBeUndefined();
    expect(turns.hasEnded("turn_0")).toBe(false); // forgotten: no longer known
    expect(turns.byId("turn_0")).not.toBe(old);
    expect(turns.hasEnded("turn_1")).toBe(true);
    expect(turns.ofInput("in_2")).toBe(turns.byId("turn_2"));
  });
});
