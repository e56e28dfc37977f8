import { describe, expect, it } from "vitest";
import { NumberedEvents } from "../../../test/support/numbered-events.js";
import { UsageError } from "../../errors.js";
import { historyBefore, movedTo } from "./session-lineage.js";

/** Two turns, and a third input queued (admitted during the second turn) that has not run. */
function origin(): NumberedEvents {
  const out = new NumberedEvents("ses_o");
  out.add("input.admitted", { inputId: "in_1", text: "one", delivery: "queue" }, "turn_1");
  out.add("turn.started", { inputId: "in_1" }, "turn_1");
  out.add("turn.ended", { outcome: "completed" }, "turn_1");
  out.add("input.admitted", { inputId: "in_2", text: "two", delivery: "queue" }, "turn_2");
  out.add("turn.started", { inputId: "in_2" }, "turn_2");
  out.add("input.admitted", { inputId: "in_s", text: "steered", delivery: "steer" }, "turn_2");
  out.add("input.delivered", { inputId: "in_s" }, "turn_2");
  out.add("input.admitted", { inputId: "in_3", text: "three", delivery: "queue" }, "turn_3");
  out.add("turn.ended", { outcome: "completed" }, "turn_2");
  out.add("turn.started", { inputId: "in_3" }, "turn_3");
  out.add("turn.ended", { outcome: "completed" }, "turn_3");
  return out;
}

describe("historyBefore", () => {
  it("is what came before the input's turn, less inputs that had not reached the model", () => {
    const { events } = origin();
    expect(historyBefore("ses_o", events, "in_2")).toEqual(events.slice(0, 3));
    // in_3 was admitted during turn_2 (before the cut) but ran after it: left out; the steered
    // input reached the model within turn_2: kept.
    const before3 = historyBefore("ses_o", events, "in_3");
    expect(before3.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 9]);
  });

  it("refuses an input the session has not, and one that started no turn of its own", () => {
    const { events } = origin();
    expect(() => historyBefore("ses_o", events, "in_nope")).toThrow(UsageError);
    expect(() => historyBefore("ses_o", events, "in_nope")).toThrow(/^session ses_o has no input/);
    expect(() => historyBefore("ses_o", events, "in_s")).toThrow(/started no turn of its own/);
  });
});

describe("movedTo", () => {
  it("names the new session and leaves the numbering to the store", () => {
    const moved = movedTo("ses_f", origin().events.slice(0, 2));
    expect(moved.map((event) => event.sessionId)).toEqual(["ses_f", "ses_f"]);
    expect(moved.every((event) => event.seq === undefined)).toBe(true);
    expect(moved[0]?.id).toBe("evt_0");
  });
});
