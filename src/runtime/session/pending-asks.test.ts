/**
 * Pending asks on their own: kept from their events, forgotten when answered or when their
 * turn ends, and answered by the timeout policy (fake timers) when nobody does.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { canonicalEvent as event } from "../../../test/support/canonical-event.js";
import { recordingLogger } from "../../../test/support/recording-logger.js";
import { UsageError } from "../../errors.js";
import {
  type AskTimeout,
  checkPermissionReply,
  checkQuestionAnswers,
  PendingAsks,
  type TimeoutAnswer,
} from "./pending-asks.js";

const permission = (turnId: string, requestId: string) =>
  event(turnId, "permission.asked", { requestId, permission: "edit", patterns: ["a.txt"] });
const question = (turnId: string, requestId: string) =>
  event(turnId, "question.asked", { requestId, questions: [{ question: "ok?" }] });

function asks(options: { timeout?: AskTimeout; ended?: string[]; failAnswers?: boolean } = {}) {
  const answers: TimeoutAnswer[] = [];
  const logger = recordingLogger();
  const pending = new PendingAsks({
    sessionId: "ses_asks",
    logger,
    timeout: options.timeout,
    turnEnded: (turnId) => (options.ended ?? []).includes(turnId),
    answer: async (answer) => {
      answers.push(answer);
      if (options.failAnswers) throw new Error("server went away");
    },
  });
  return { pending, answers, logger };
}

describe("PendingAsks", () => {
  it("keeps permission and question asks, oldest first, with their turn and event", () => {
    const { pending } = asks();
    const asked = permission("turn_a", "per_1");
    pending.track(asked);
    pending.track(question("turn_a", "que_1"));
    expect(pending.size).toBe(2);
    expect(pending.list()).toEqual([
      { kind: "permission", requestId: "per_1", turnId: "turn_a", event: asked },
      expect.objectContaining({ kind: "question", requestId: "que_1" }),
    ]);
    expect(pending.waiting("per_1", "permission").event).toBe(asked);
  });

  it("forgets an ask once replied, answered or rejected", () => {
    const { pending } = asks();
    pending.track(permission("turn_a", "per_1"));
    pending.track(question("turn_a", "que_1"));
    pending.track(question("turn_a", "que_2"));
    pending.track(event("turn_a", "permission.replied", { requestId: "per_1", reply: "once" }));
    pending.track(event("turn_a", "question.replied", { requestId: "que_1", answers: [["y"]] }));
    pending.track(event("turn_a", "question.rejected", { requestId: "que_2" }));
    expect(pending.list()).toEqual([]);
  });

  it("forgets the asks of a turn that ended, and only those", () => {
    const { pending } = asks();
    pending.track(permission("turn_a", "per_1"));
    pending.track(permission("turn_b", "per_2"));
    pending.track(event("turn_a", "turn.ended", { outcome: "interrupted" }));
    expect(pending.list().map((ask) => ask.requestId)).toEqual(["per_2"]);
  });

  it("does not wait on an ask that comes after its turn ended", () => {
    const { pending, logger } = asks({ ended: ["turn_old"] });
    pending.track(permission("turn_old", "per_late"));
    expect(pending.size).toBe(0);
    expect(logger.entries.map((entry) => entry.message)).toContain(
      "an ask came after its turn ended; not waiting on it",
    );
  });

  it("other events change nothing", () => {
    const { pending } = asks();
    pending.track(permission("turn_a", "per_1"));
    pending.track(event("turn_a", "tool.called", { callId: "c1", tool: "edit", input: {} }));
    pending.track(
      event(undefined, "connection.changed", { state: "connected", since: 0, attempt: 0 }),
    );
    expect(pending.size).toBe(1);
  });

  it("refuses an answer to an ask that does not wait, or is of the other kind", () => {
    const { pending } = asks();
    pending.track(permission("turn_a", "per_1"));
    expect(() => pending.waiting("per_9", "permission")).toThrow(UsageError);
    expect(() => pending.waiting("per_1", "question")).toThrow(
      /no question ask "per_1" is waiting in session ses_asks/,
    );
  });
});

describe("PendingAsks with a timeout", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("answers an unanswered permission by the policy, and a question by rejecting it", async () => {
    const { pending, answers } = asks({ timeout: { afterMs: 30_000, permission: "once" } });
    pending.track(permission("turn_a", "per_1"));
    pending.track(question("turn_a", "que_1"));
    await vi.advanceTimersByTimeAsync(29_999);
    expect(answers).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(answers).toEqual([
      { kind: "permission", requestId: "per_1", reply: "once", message: "no answer within 30 s" },
      { kind: "question", requestId: "que_1", reject: true },
    ]);
  });

  it("rejects permissions by default", async () => {
    const { pending, answers } = asks({ timeout: { afterMs: 1_000 } });
    pending.track(permission("turn_a", "per_1"));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(answers).toMatchObject([{ kind: "permission", reply: "reject" }]);
  });

  it("answers nothing that was answered, or whose turn ended, in time", async () => {
    const { pending, answers } = asks({ timeout: { afterMs: 1_000 } });
    pending.track(permission("turn_a", "per_1"));
    pending.track(permission("turn_b", "per_2"));
    pending.track(event("turn_a", "permission.replied", { requestId: "per_1", reply: "always" }));
    pending.track(event("turn_b", "turn.ended", { outcome: "failed" }));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(answers).toEqual([]);
  });

  it("answers an ask asked twice once", async () => {
    const { pending, answers } = asks({ timeout: { afterMs: 1_000 } });
    pending.track(permission("turn_a", "per_1"));
    await vi.advanceTimersByTimeAsync(500);
    pending.track(permission("turn_a", "per_1"));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(answers).toHaveLength(1);
  });

  it("arms nothing and answers nothing once closed", async () => {
    const { pending, answers } = asks({ timeout: { afterMs: 1_000 } });
    pending.track(permission("turn_a", "per_1"));
    pending.close();
    pending.track(permission("turn_a", "per_2"));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(answers).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("logs an answer that failed, and goes on", async () => {
    const { pending, answers, logger } = asks({ timeout: { afterMs: 1_000 }, failAnswers: true });
    pending.track(permission("turn_a", "per_1"));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(answers).toHaveLength(1);
    expect(logger.entries.map((entry) => entry.message)).toContain(
      "answering an ask on timeout failed",
    );
  });

  it("without a policy, waits for as long as it takes", async () => {
    const { pending, answers } = asks();
    pending.track(permission("turn_a", "per_1"));
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(24 * 3_600_000);
    expect(answers).toEqual([]);
  });
});

describe("checks of what a user answers", () => {
  it("takes the three permission replies and refuses others", () => {
    for (const reply of ["once", "always", "reject"])
      expect(() => checkPermissionReply(reply)).not.toThrow();
    expect(() => checkPermissionReply("yes")).toThrow(/reply must be "once", "always" or "reject"/);
  });

  it("takes one list of strings per question and refuses others", () => {
    expect(() => checkQuestionAnswers([["yes"], []])).not.toThrow();
    for (const bad of ["yes", ["yes"], [[1]], undefined]) {
      expect(() => checkQuestionAnswers(bad)).toThrow(UsageError);
    }
  });
});
