import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { canonical } from "../../events/build.js";
import type { CanonicalEvent, CanonicalEventOf, CanonicalType } from "../../events/canonical.js";
import type { Logger } from "../../util/logger.js";
import { AskTurns } from "./ask-turns.js";

let count = 0;
function event<T extends CanonicalType>(
  type: T,
  data: CanonicalEventOf<T>["data"],
  turnId?: string,
): CanonicalEvent {
  const native = { backend: "serve" as const, type, id: `native_${++count}` };
  return canonical({ sessionId: "ses_1", turnId, at: 0, native }, 0, type, data);
}

const called = (callId: string, turnId: string | undefined) =>
  event("tool.called", { callId, tool: "question", input: {}, stepId: "step_1" }, turnId);
const asked = (requestId: string, callId: string | undefined, turnId?: string) =>
  event(
    "question.asked",
    { requestId, questions: [], ...(callId === undefined ? {} : { callId }) },
    turnId,
  );

function setup(current: { turn?: string } = {}) {
  const out: CanonicalEvent[] = [];
  const warnings: string[] = [];
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (message) => warnings.push(message),
    error: () => {},
  };
  const asks = new AskTurns((e) => out.push(e), {
    currentTurn: () => current.turn,
    logger,
    boundMs: 1_000,
  });
  const seen = () => out.map((e) => `${e.type}@${e.turnId ?? "-"}`);
  return { asks, out, seen, warnings };
}

describe("AskTurns", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("holds an ask whose call is unknown, and passes it on right after the call, in the call's turn", () => {
    const { asks, seen } = setup();
    asks.push(asked("que_1", "call_1"));
    expect(seen()).toEqual([]);
    asks.push(
      event("step.started", { stepId: "s", model: { providerID: "p", modelID: "m" } }, "turn_a"),
    );
    asks.push(called("call_1", "turn_a"));
    expect(seen()).toEqual(["step.started@turn_a", "tool.called@turn_a", "question.asked@turn_a"]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("gives an ask after its call the call's turn, over the one it was normalised with", () => {
    const { asks, seen } = setup();
    asks.push(called("call_1", "turn_b"));
    asks.push(asked("que_1", "call_1", "turn_a"));
    expect(seen()).toEqual(["tool.called@turn_b", "question.asked@turn_b"]);
  });

  it("passes an ask with no call at once", () => {
    const { asks, seen } = setup();
    asks.push(asked("que_1", undefined, "turn_a"));
    expect(seen()).toEqual(["question.asked@turn_a"]);
  });

  it("keeps a reply to a held ask behind it", () => {
    const { asks, seen } = setup();
    asks.push(asked("que_1", "call_1"));
    asks.push(event("question.replied", { requestId: "que_1" }));
    asks.push(event("question.replied", { requestId: "que_other" }));
    expect(seen()).toEqual(["question.replied@-"]);
    asks.push(called("call_1", "turn_a"));
    expect(seen()).toEqual([
      "question.replied@-",
      "tool.called@turn_a",
      "question.asked@turn_a",
      "question.replied@turn_a",
    ]);
  });

  it("lets a held ask go after the bound, in the turn running then, and says so", () => {
    const current: { turn?: string } = {};
    const { asks, seen, warnings } = setup(current);
    asks.push(asked("que_1", "call_1"));
    vi.advanceTimersByTime(999);
    expect(seen()).toEqual([]);
    current.turn = "turn_now";
    vi.advanceTimersByTime(1);
    expect(seen()).toEqual(["question.asked@turn_now"]);
    expect(warnings).toHaveLength(1);
    // Its call showing up late does not publish it twice.
    asks.push(called("call_1", "turn_now"));
    expect(seen()).toEqual(["question.asked@turn_now", "tool.called@turn_now"]);
  });

  it("flush lets held asks go, clears their timers, and holds nothing after", () => {
    const { asks, seen } = setup({ turn: "turn_a" });
    asks.push(asked("que_1", "call_1"));
    asks.flush();
    expect(seen()).toEqual(["question.asked@turn_a"]);
    expect(vi.getTimerCount()).toBe(0);
    asks.push(asked("que_2", "call_2"));
    expect(seen()).toEqual(["question.asked@turn_a", "question.asked@-"]);
  });

  it("remembers the turns of a bounded number of calls", () => {
    const { asks, seen } = setup();
    for (let index = 0; index <= 200; index++) asks.push(called(`call_${index}`, "turn_a"));
    asks.push(asked("que_last", "call_200"));
    expect(seen().at(-1)).toBe("question.asked@turn_a");
    // The oldest call is forgotten: an ask about it waits (bounded) like one about a new call.
    asks.push(asked("que_first", "call_0"));
    expect(seen().at(-1)).toBe("question.asked@turn_a");
    expect(seen()).toHaveLength(202);
    expect(vi.getTimerCount()).toBe(1);
  });

  it("keeps the calls of the running turn and of the one before, not of a long session's every turn", () => {
    const { asks, seen } = setup();
    const turnEnded = (turnId: string) =>
      event("turn.ended", { outcome: "completed", text: "" }, turnId);
    asks.push(called("call_a", "turn_a"));
    asks.push(turnEnded("turn_a"));
    // The live stream lags: the ask about turn_a's call comes after its end.
    asks.push(asked("que_a", "call_a"));
    expect(seen().at(-1)).toBe("question.asked@turn_a");
    asks.push(called("call_b", "turn_b"));
    asks.push(turnEnded("turn_b"));
    asks.push(asked("que_b", "call_b"));
    expect(seen().at(-1)).toBe("question.asked@turn_b");
    // turn_a's calls are forgotten two turn ends later: an ask about one waits (bounded).
    asks.push(asked("que_a2", "call_a"));
    expect(seen().at(-1)).toBe("question.asked@turn_b");
    expect(vi.getTimerCount()).toBe(1);
  });
});
