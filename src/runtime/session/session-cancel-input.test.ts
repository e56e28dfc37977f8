/**
 * `Session.cancelInput`: a queued input the runtime holds (a backend without a queue) is taken
 * back before it is sent: `input.cancelled`, its turn's one `turn.ended` (interrupted,
 * cancelled), the running turn untouched and the next held input sent in its place. An input
 * sent already, or unknown, is refused with a clear error. Over the in-process backend.
 */
import { describe, expect, it } from "vitest";
import { inProcessSession } from "../../../test/support/in-process-backend.js";
import { UsageError } from "../../errors.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import { conversationOf } from "../../wire/conversation.js";

const flush = () => new Promise((resolve) => setImmediate(resolve));

function admittedId(events: readonly CanonicalEvent[], turnId: string): string {
  for (const event of events) {
    if (event.type === "input.admitted" && event.turnId === turnId) return event.data.inputId;
  }
  throw new Error(`no admission in ${turnId}`);
}

describe("Session.cancelInput", () => {
  it("takes a held input back: input.cancelled, its turn ends, the next held one goes instead", async () => {
    const { session, backend } = inProcessSession("ocb_cancel");
    const running = await session.send("one", { delivery: "queue" });
    const dropped = await session.send("two", { delivery: "queue" });
    const next = await session.send("three", { delivery: "queue" });
    const droppedInput = admittedId(await session.transcript(), dropped.id);

    session.cancelInput(droppedInput);
    expect(await dropped.done()).toMatchObject({
      outcome: "interrupted",
      reason: "cancelled",
      text: "",
    });
    const ofDropped = (await session.transcript()).filter((event) => event.turnId === dropped.id);
    expect(ofDropped.map((event) => event.type)).toEqual([
      "input.admitted",
      "input.cancelled",
      "turn.ended",
    ]);
    expect(ofDropped[1]?.data).toEqual({ inputId: droppedInput, reason: "cancelled" });
    // The running turn runs on; the cancelled input is never sent.
    expect(running.state).toBe("running");
    expect(session.runningTurn).toBe(running);
    backend.end("completed");
    await flush();
    expect(backend.prompts.map((prompt) => prompt.text)).toEqual(["one", "three"]);
    expect(next.state).toBe("running");
    // The conversation shows the user message as not delivered.
    const { messages } = conversationOf(await session.transcript(), session.id);
    expect(
      messages.find((message) => message.role === "user" && message.text === "two"),
    ).toMatchObject({
      cancelled: "cancelled",
    });
    await session.close();
  });

  it("refuses an input sent already, and an unknown one, saying which", async () => {
    const { session } = inProcessSession("ocb_cancel_refused");
    const running = await session.send("one", { delivery: "queue" });
    const sent = admittedId(await session.transcript(), running.id);
    expect(() => session.cancelInput(sent)).toThrow(UsageError);
    expect(() => session.cancelInput(sent)).toThrow(/was sent already/);
    expect(() => session.cancelInput("in_nope")).toThrow(/^no queued input in_nope/);
    await session.close();
    expect(() => session.cancelInput(sent)).toThrow(/is closed/);
  });

  it("is refused where the server keeps the queue (capabilities.cancelQueued false)", async () => {
    const { session, backend } = inProcessSession("ocb_cancel_native");
    Object.defineProperty(backend, "capabilities", {
      value: { ...backend.capabilities, cancelQueued: false },
    });
    await session.send("one", { delivery: "queue" });
    expect(() => session.cancelInput("in_1")).toThrow(/cannot take back a queued input/);
    await session.close();
  });
});
