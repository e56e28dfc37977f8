import { describe, expect, it } from "vitest";
import { ToolCalls } from "./tool-calls.js";

const bash = (command: string) => ({ tool: "bash", input: { command } });

describe("ToolCalls", () => {
  it("keeps the calls of the running turn and of the one before, not of every turn", async () => {
    const calls = new ToolCalls();
    calls.called("call_1", bash("one"));
    calls.turnEnded();
    calls.called("call_2", bash("two"));
    // An ask about the ended turn's call (the live stream lagging) still finds its input.
    expect(await calls.input("call_1", 0)).toEqual(bash("one"));
    calls.turnEnded();
    expect(await calls.input("call_2", 0)).toEqual(bash("two"));
    expect(calls.size).toBe(1);
    expect(await calls.input("call_1", 10)).toBeUndefined();
  });

  it("hands a call seen while a reader waits for it", async () => {
    const calls = new ToolCalls();
    const waiting = calls.input("call_late", 5_000);
    calls.called("call_late", bash("late"));
    expect(await waiting).toEqual(bash("late"));
  });
});
