/**
 * The runtime's own rules, over an in-process backend that publishes canonical events the way
 * a backend without a queue or steer does (the subprocess backend's shape). Not end to end:
 * the parity suite runs the real backends.
 */
import { describe, expect, it } from "vitest";
import { inProcessSession } from "../../../test/support/in-process-backend.js";
import type { SessionOptions } from "./session.js";

const session = (options: Partial<SessionOptions> = {}) => inProcessSession("ocb_test", options);

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe("Session on a backend without a queue", () => {
  it("holds a queued input while a turn runs and sends it when the turn ends", async () => {
    const { session: s, backend } = session();
    const first = await s.send("one", { delivery: "queue" });
    const second = await s.send("two", { delivery: "queue" });
    expect(second).not.toBe(first);
    expect(backend.prompts.map((prompt) => prompt.text)).toEqual(["one"]);
    // The held input is on the stream at once, as admitted to its own (pending) turn.
    expect((await s.transcript()).at(-1)).toMatchObject({
      type: "input.admitted",
      turnId: second.id,
      data: { text: "two", delivery: "queue" },
    });
    expect(second.state).toBe("pending");
    backend.end("completed");
    await flush();
    expect(backend.prompts.map((prompt) => [prompt.text, prompt.announced])).toEqual([
      ["one", undefined],
      ["two", true],
    ]);
    expect(second.state).toBe("running");
    // Announced once only: one admission per input.
    const admitted = (await s.transcript()).filter((event) => event.type === "input.admitted");
    expect(admitted).toHaveLength(2);
    await s.close();
  });

  it("says the seq of its last durable event (resume points for its readers)", async () => {
    const { session: s, backend } = session();
    expect(s.lastSeq).toBe(0);
    await s.send("one", { delivery: "queue" });
    backend.end("completed");
    await flush();
    expect(s.lastSeq).toBe((await s.transcript()).at(-1)?.seq);
    expect(s.lastSeq).toBeGreaterThan(0);
    await s.close();
  });

  it("queues a steer by default, and supersedes the running turn when told to", async () => {
    const queued = session();
    const first = await queued.session.send("one", { delivery: "queue" });
    const steer = await queued.session.send("now", { delivery: "steer" });
    expect(steer).not.toBe(first);
    expect(queued.backend.interrupts).toBe(0);

    const superseding = session({ steerFallback: "supersede" });
    const running = await superseding.session.send("one", { delivery: "queue" });
    await superseding.session.send("later", { delivery: "queue" });
    const now = await superseding.session.send("now", { delivery: "steer" });
    await flush();
    expect(superseding.backend.interrupts).toBe(1);
    expect((await running.done()).outcome).toBe("interrupted");
    // The superseding input runs next, ahead of what was already queued.
    expect(superseding.backend.prompts.map((prompt) => prompt.text)).toEqual(["one", "now"]);
    expect(now.state).toBe("running");
    await queued.session.close();
    await superseding.session.close();
  });

  it("ends a held input's turn failed when it cannot be sent, and goes on with the next", async () => {
    const { session: s, backend } = session();
    await s.send("one", { delivery: "queue" });
    const doomed = await s.send("two", { delivery: "queue" });
    const after = await s.send("three", { delivery: "queue" });
    backend.failNextPrompt = new Error("server went away");
    backend.end("completed");
    const result = await doomed.done();
    expect(result).toMatchObject({ outcome: "failed", reason: "send-failed" });
    expect(result.error?.message).toContain("server went away");
    await flush();
    expect(after.state).toBe("running");
    await s.close();
  });

  it("refuses a delivery it does not know, and sends on a closed session", async () => {
    const { session: s } = session();
    await expect(s.send("x", { delivery: "now" as "queue" })).rejects.toThrow(
      /delivery must be "steer" or "queue"/,
    );
    await s.close();
    await expect(s.send("x", { delivery: "queue" })).rejects.toThrow(/closed/);
  });

  it("takes concurrent sends one at a time: the second is held, not run beside the first", async () => {
    const { session: s, backend } = session();
    const [first, second] = await Promise.all([
      s.send("one", { delivery: "queue" }),
      s.send("two", { delivery: "queue" }),
    ]);
    expect(second).not.toBe(first);
    expect(backend.prompts.map((prompt) => prompt.text)).toEqual(["one"]);
    await s.close();
  });

  it("on close, ends the running turn and the held ones failed, so nobody waits forever", async () => {
    const { session: s } = session();
    const running = await s.send("one", { delivery: "queue" });
    const held = await s.send("two", { delivery: "queue" });
    await s.close();
    expect(await running.done()).toMatchObject({ outcome: "failed", reason: "session-closed" });
    expect(await held.done()).toMatchObject({ outcome: "failed", reason: "session-closed" });
  });

  it("after a stall, drops the stalled turn's late events and sends the next input", async () => {
    const { session: s, backend } = session({ watchdog: { admitTimeoutMs: 30 } });
    backend.silent = true;
    const stalled = await s.send("one", { delivery: "queue" });
    const next = await s.send("two", { delivery: "queue" });
    expect(await stalled.done()).toMatchObject({ outcome: "failed", reason: "stalled" });
    backend.silent = false;
    // The stalled run's own start and end, arriving late, change nothing.
    backend.emit(stalled.id, "turn.started", { inputId: "late" });
    backend.emit(stalled.id, "turn.ended", { outcome: "completed", text: "late" });
    const ends = (await s.transcript()).filter(
      (event) => event.turnId === stalled.id && event.type === "turn.ended",
    );
    expect(ends).toHaveLength(1);
    await flush();
    expect(next.state).toBe("running");
    await s.close();
  });
});
