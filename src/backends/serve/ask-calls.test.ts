/** The serve backend's ask bookkeeping keeps only what is open. */
import { describe, expect, it } from "vitest";
import { AskCalls } from "./ask-calls.js";

describe("AskCalls", () => {
  it("names a refused call's failure once, then forgets the ask and the call", () => {
    const calls = new AskCalls();
    calls.asked("per_1", "call_1", "turn_1");
    calls.refusing("per_1", "permission-rejected");
    calls.answered("per_1");
    expect(calls.settled("call_1")).toBe("permission-rejected");
    expect(calls.size).toEqual({ asks: 0, refusals: 0 });
  });

  it("undoes a refusal that could not be sent", () => {
    const calls = new AskCalls();
    calls.asked("per_1", "call_1", "turn_1");
    const undo = calls.refusing("per_1", "permission-rejected");
    undo();
    expect(calls.settled("call_1")).toBeUndefined();
  });

  it("forgets a turn's asks and refusals when it ends, even those never answered or settled", () => {
    const calls = new AskCalls();
    calls.asked("per_1", "call_1", "turn_1");
    calls.asked("que_2", "call_2", "turn_1");
    calls.refusing("que_2", "question-rejected");
    calls.asked("per_3", "call_3", "turn_2");
    calls.turnEnded("turn_1");
    expect(calls.size).toEqual({ asks: 1, refusals: 0 });
  });

  it("stays empty over many answered asks whose calls settled", () => {
    const calls = new AskCalls();
    for (let n = 0; n < 1_000; n++) {
      calls.asked(`per_${n}`, `call_${n}`, `turn_${n}`);
      if (n % 2 === 0) calls.refusing(`per_${n}`, "permission-rejected");
      calls.answered(`per_${n}`);
      calls.settled(`call_${n}`);
    }
    expect(calls.size).toEqual({ asks: 0, refusals: 0 });
  });
});
