/**
 * The session's side of an outage of the native streams, over an in-memory backend that
 * reports its connection the way the serve backends do, with fake timers: the stall watchdog
 * rests while the streams are down, the connection-lost bound takes its place, and each change
 * is published as an ephemeral `connection.changed` and readable as `session.connection`.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { serveShapedSession } from "../../../test/support/serve-shaped-backend.js";
import { UsageError } from "../../errors.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import type { SessionOptions } from "./session.js";

function open(options: Partial<SessionOptions> = {}) {
  const { session, backend } = serveShapedSession("ses_fake", {
    watchdog: { admitTimeoutMs: 10_000, silenceTimeoutMs: 10_000 },
    ...options,
  });
  const seen: CanonicalEvent[] = [];
  const reading = new AbortController();
  void (async () => {
    for await (const event of session.events({ signal: reading.signal })) seen.push(event);
  })().catch(() => {});
  return { session, backend, seen, stopReading: () => reading.abort() };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("Session while its streams are down", () => {
  it("keeps a running turn past the stall bound while reconnecting, and says so", async () => {
    const { session, backend, seen, stopReading } = open({ connectionLostAfterMs: 60_000 });
    const turn = await session.send("hi", { delivery: "queue" });
    const start = Date.now();
    backend.down(1);
    await vi.advanceTimersByTimeAsync(20_000); // twice the stall bound
    backend.down(2);
    expect(session.connection).toEqual({
      state: "reconnecting",
      since: start,
      attempt: 2,
      reason: "ECONNREFUSED",
    });
    await vi.advanceTimersByTimeAsync(20_000);
    expect(turn.state).toBe("running");
    backend.up();
    expect(session.connection).toMatchObject({ state: "connected", attempt: 0 });
    // The durable stream catches up: the turn ends as it ended upstream.
    backend.emit(turn.id, "turn.ended", { outcome: "completed", text: "hello" });
    expect(await turn.done()).toMatchObject({ outcome: "completed", text: "hello" });
    await vi.advanceTimersByTimeAsync(0);
    const changes = seen.filter((event) => event.type === "connection.changed");
    expect(changes.map((event) => event.data)).toEqual([
      { state: "reconnecting", since: start, attempt: 1, reason: "ECONNREFUSED" },
      { state: "reconnecting", since: start, attempt: 2, reason: "ECONNREFUSED" },
      { state: "connected", since: start + 40_000, attempt: 0 },
    ]);
    expect(changes.every((event) => !event.durable && event.turnId === undefined)).toBe(true);
    expect((await session.transcript()).some((event) => event.type === "connection.changed")).toBe(
      false,
    );
    stopReading();
    await session.close();
  });

  it("ends the running turn failed (connection-lost) once the outage outlasts the bound", async () => {
    const { session, backend } = open({ connectionLostAfterMs: 60_000 });
    const turn = await session.send("hi", { delivery: "queue" });
    backend.down(1);
    await vi.advanceTimersByTimeAsync(59_000);
    expect(turn.state).toBe("running");
    await vi.advanceTimersByTimeAsync(2_000);
    const result = await turn.done();
    expect(result).toMatchObject({ outcome: "failed", reason: "connection-lost" });
    expect(result.error?.message).toMatch(/lost 60 s ago.*1 failed attempts, last: ECONNREFUSED/);
    expect(backend.abandoned).toBe(1);
    // The streams come back and catch up: the ended turn's late events change nothing.
    backend.up();
    backend.emit(turn.id, "turn.ended", { outcome: "completed", text: "late" });
    const ends = (await session.transcript()).filter(
      (event) => event.type === "turn.ended" && event.turnId === turn.id,
    );
    expect(ends).toHaveLength(1);
    // And the session is not deaf: the next input runs and its turn ends normally.
    const next = await session.send("again", { delivery: "queue" });
    backend.emit(next.id, "turn.ended", { outcome: "completed", text: "ok" });
    expect(await next.done()).toMatchObject({ outcome: "completed" });
    await session.close();
  });

  it("gives an input sent during a long outage the whole bound; an idle outage ends nothing", async () => {
    const { session, backend } = open({ connectionLostAfterMs: 60_000 });
    backend.down(1);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(session.connection.state).toBe("reconnecting");
    // The server took the input (it answers again); the streams have not retried yet.
    const turn = await session.send("hi", { delivery: "queue" });
    await vi.advanceTimersByTimeAsync(59_000);
    expect(turn.state).toBe("running");
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await turn.done()).toMatchObject({ outcome: "failed", reason: "connection-lost" });
    expect((await turn.done()).error?.message).toMatch(/lost 180 s ago/);
    await session.close();
  });

  it("runs the stall watchdog again, from zero, once the streams are back", async () => {
    const { session, backend } = open({ connectionLostAfterMs: 60_000 });
    const turn = await session.send("hi", { delivery: "queue" });
    await vi.advanceTimersByTimeAsync(9_000);
    backend.down(1);
    await vi.advanceTimersByTimeAsync(30_000);
    backend.up();
    await vi.advanceTimersByTimeAsync(9_000);
    expect(turn.state).toBe("running");
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await turn.done()).toMatchObject({ outcome: "failed", reason: "stalled" });
    await session.close();
  });

  it("tells beforeSend once that the streams came back (the server may have restarted)", async () => {
    const told: boolean[] = [];
    const { session, backend } = open({
      beforeSend: async ({ reconnected }) => {
        told.push(reconnected);
      },
    });
    const first = await session.send("one", { delivery: "queue" });
    backend.emit(first.id, "turn.ended", { outcome: "completed", text: "" });
    backend.down(1);
    backend.up();
    const second = await session.send("two", { delivery: "queue" });
    backend.emit(second.id, "turn.ended", { outcome: "completed", text: "" });
    await session.send("three", { delivery: "queue" });
    expect(told).toEqual([false, true, false]);
    await session.close();
  });

  it("refuses a bound that is not a positive duration", () => {
    expect(() => open({ connectionLostAfterMs: 0 })).toThrow(UsageError);
    expect(() => open({ connectionLostAfterMs: 2 ** 40 })).toThrow(/Infinity/);
  });
});
