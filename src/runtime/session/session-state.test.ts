/**
 * A session's run state: each transition, what it changes and whom it wakes, and each one
 * refused (a stop settled that never started, a stop once closed, a second close, what a
 * closed session cannot do).
 */
import { describe, expect, it } from "vitest";
import { canonicalEvent as event } from "../../../test/support/canonical-event.js";
import { UsageError } from "../../errors.js";
import { SessionState } from "./session-state.js";

/** A bound no test reaches: a wait here ends by its condition. */
const WAIT = { what: "waiting for a change", timeoutMs: 60_000 };

describe("SessionState", () => {
  it("starts idle and open: free, nothing runs, nothing waits", () => {
    const state = new SessionState("ses_state");
    expect(state.phase).toBe("idle");
    expect(state.running).toBe(false);
    expect(state.free).toBe(true);
    expect(state.closed).toBe(false);
    expect(state.run.awaiting).toEqual([]);
  });

  it("awaiting: an input sent upstream waits for its turn, once, until its turn starts", () => {
    const state = new SessionState("ses_state");
    state.awaiting("in_a");
    state.awaiting("in_a");
    expect(state.run.awaiting).toEqual(["in_a"]);
    expect(state.phase).toBe("awaiting");
    expect(state.running).toBe(true);
    expect(state.free).toBe(false);
    state.track(event("turn_in_a", "turn.started", { inputId: "in_a" }));
    expect(state.run).toMatchObject({ running: "turn_in_a", awaiting: [] });
    expect(state.phase).toBe("running");
  });

  it("track: a turn's end makes the session idle again", () => {
    const state = new SessionState("ses_state");
    state.track(event("turn_a", "turn.started", {}));
    state.track(event("turn_a", "turn.ended", { outcome: "completed", text: "" }));
    expect(state.phase).toBe("idle");
    expect(state.free).toBe(true);
  });

  it("forgetAwaiting: the runtime ended an input's turn itself; an unknown input changes nothing", () => {
    const state = new SessionState("ses_state");
    state.awaiting("in_a");
    state.awaiting("in_b");
    state.forgetAwaiting("in_a");
    state.forgetAwaiting("in_unknown");
    expect(state.run.awaiting).toEqual(["in_b"]);
  });

  it("stopStarted / stopSettled: not free while a stop is under way, until every stop settled", () => {
    const state = new SessionState("ses_state");
    state.stopStarted();
    expect(state.phase).toBe("stopping");
    expect(state.free).toBe(false);
    state.stopStarted(); // a lost connection after a stall
    state.stopSettled();
    expect(state.stopping).toBe(true);
    state.stopSettled();
    expect(state.stopping).toBe(false);
    expect(state.phase).toBe("idle");
    expect(state.free).toBe(true);
  });

  it("refuses a stop settled that never started", () => {
    const state = new SessionState("ses_state");
    expect(() => state.stopSettled()).toThrow("no stop was under way");
    state.stopStarted();
    state.stopSettled();
    expect(() => state.stopSettled()).toThrow("no stop was under way");
  });

  it("close: open → closed once; a second close is refused (false) and changes nothing", () => {
    const state = new SessionState("ses_state");
    expect(state.close()).toBe(true);
    expect(state.closed).toBe(true);
    expect(state.phase).toBe("closed");
    expect(state.free).toBe(false);
    expect(state.close()).toBe(false);
    expect(state.phase).toBe("closed");
  });

  it("a closed session refuses sends (and answers, reverts, cancels) and a new stop", () => {
    const state = new SessionState("ses_state");
    expect(() => state.throwIfClosed()).not.toThrow();
    state.close();
    expect(() => state.throwIfClosed()).toThrow(UsageError);
    expect(() => state.throwIfClosed()).toThrow("session ses_state is closed; open it again");
    expect(() => state.stopStarted()).toThrow(UsageError);
  });

  it("once closed, still follows what runs and waits: the close ends those turns", () => {
    const state = new SessionState("ses_state");
    state.track(event("turn_a", "turn.started", {}));
    state.close();
    state.awaiting("in_b"); // a send under way at the close named its input
    expect(state.run).toMatchObject({ running: "turn_a", awaiting: ["in_b"] });
    state.track(event("turn_a", "turn.ended", { outcome: "failed", text: "" }));
    expect(state.run.running).toBeUndefined();
    expect(state.phase).toBe("closed");
  });

  it("a stop under way at the close settles after it", () => {
    const state = new SessionState("ses_state");
    state.stopStarted();
    state.close();
    state.stopSettled();
    expect(state.stopping).toBe(false);
  });

  it("until: resolves at once when the condition holds, else at the change that makes it hold", async () => {
    const state = new SessionState("ses_state");
    await expect(state.until(() => true, WAIT)).resolves.toBe(true);
    let started = false;
    const waiting = state
      .until(() => state.run.running !== undefined, WAIT)
      .then((held) => {
        started = true;
        return held;
      });
    state.awaiting("in_a"); // no change the waiter is woken for: no event yet
    await Promise.resolve();
    expect(started).toBe(false);
    state.track(event("turn_in_a", "turn.started", { inputId: "in_a" }));
    await expect(waiting).resolves.toBe(true);
  });

  it("until: the close wakes a waiter", async () => {
    const state = new SessionState("ses_state");
    const waiting = state.until(() => state.closed, WAIT);
    state.close();
    await expect(waiting).resolves.toBe(true);
  });

  it("until: a settled stop wakes a waiter for a free session", async () => {
    const state = new SessionState("ses_state");
    state.stopStarted();
    const waiting = state.until(() => state.free, WAIT);
    state.stopSettled();
    await expect(waiting).resolves.toBe(true);
  });
});
