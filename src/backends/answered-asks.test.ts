import { describe, expect, it } from "vitest";
import { canonical } from "../events/build.js";
import type { CanonicalEvent, CanonicalEventOf, CanonicalType } from "../events/canonical.js";
import { ANSWERED_ASKS_KEPT, AnsweredAsks } from "./answered-asks.js";

let count = 0;
function fromStream<T extends CanonicalType>(type: T, data: CanonicalEventOf<T>["data"]) {
  const native = { backend: "serve" as const, type, id: `evt_${++count}` };
  return canonical({ sessionId: "ses_1", turnId: "turn_1", at: 0, native }, 0, type, data);
}

describe("AnsweredAsks", () => {
  it("passes every event that is not a reply", () => {
    const asks = new AnsweredAsks("ses_1", "serve");
    const ask = fromStream("question.asked", { requestId: "que_1", questions: [] });
    expect(asks.keep(ask)).toBe(true);
    expect(asks.keep(ask)).toBe(true);
    expect(asks.keep(fromStream("text.delta", { partId: "p", delta: "x" }))).toBe(true);
  });

  it("keeps the first reply to an ask from the stream and drops a repeat", () => {
    const asks = new AnsweredAsks("ses_1", "serve");
    const reply = fromStream("permission.replied", { requestId: "per_1", reply: "once" });
    expect(asks.keep(reply)).toBe(true);
    expect(asks.keep({ ...reply, id: "evt_again" })).toBe(false);
  });

  it("publishes the reply itself after a successful call, and then drops the stream's", () => {
    const asks = new AnsweredAsks("ses_1", "serve");
    const published = asks.replied(
      "question.replied",
      { requestId: "que_1", answers: [["a"]] },
      "turn_1",
    );
    expect(published).toMatchObject({
      sessionId: "ses_1",
      turnId: "turn_1",
      type: "question.replied",
      data: { requestId: "que_1", answers: [["a"]] },
      durable: true,
      native: { backend: "serve", type: "reply", id: "reply_que_1" },
    });
    expect(asks.keep(fromStream("question.replied", { requestId: "que_1" }))).toBe(false);
  });

  it("publishes nothing after a call when the stream's reply came first", () => {
    const asks = new AnsweredAsks("ses_1", "serve");
    expect(asks.keep(fromStream("question.rejected", { requestId: "que_1" }))).toBe(true);
    expect(asks.replied("question.rejected", { requestId: "que_1" }, "turn_1")).toBeUndefined();
  });

  it("publishes exactly one reply per ask, whichever side says it, however often", () => {
    const asks = new AnsweredAsks("ses_1", "serve");
    const kept: CanonicalEvent[] = [];
    for (const requestId of ["per_1", "per_2", "per_1", "per_2"]) {
      const mine = asks.replied("permission.replied", { requestId, reply: "always" }, undefined);
      if (mine) kept.push(mine);
      const theirs = fromStream("permission.replied", { requestId, reply: "always" });
      if (asks.keep(theirs)) kept.push(theirs);
    }
    expect(
      kept.map((event) => (event.type === "permission.replied" ? event.data.requestId : "")),
    ).toEqual(["per_1", "per_2"]);
  });

  it("gives a reply with no turn no turnId, and ids that do not collide across asks", () => {
    const asks = new AnsweredAsks("ses_1", "serve");
    const first = asks.replied("question.rejected", { requestId: "que_1" }, undefined);
    const second = asks.replied("question.rejected", { requestId: "que_2" }, undefined);
    expect(first && "turnId" in first).toBe(false);
    expect(first?.id).not.toBe(second?.id);
  });
});

describe("AnsweredAsks over a long session", () => {
  it("remembers a recent window of answered asks, not every ask ever answered", () => {
    const asks = new AnsweredAsks("ses_1", "serve");
    const reply = (n: number) =>
      fromStream("permission.replied", { requestId: `per_${n}`, reply: "once" });
    for (let n = 0; n <= ANSWERED_ASKS_KEPT; n++) expect(asks.keep(reply(n))).toBe(true);
    // The latest are still known (a repeat is dropped); the oldest has been forgotten.
    expect(asks.keep(reply(ANSWERED_ASKS_KEPT))).toBe(false);
    expect(asks.answeredCount).toBe(ANSWERED_ASKS_KEPT);
  });
});
