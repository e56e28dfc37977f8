/**
 * The turns the runtime ends itself, on their own: which turns each reason ends, with which
 * events, which are abandoned (their late events dropped), and when the upstream run is
 * stopped with held inputs waiting for it.
 */
import { describe, expect, it } from "vitest";
import { recordingLogger } from "../../../test/support/recording-logger.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import { initialRunState, type RunState } from "./run-state.js";
import { RuntimeEnds } from "./runtime-ends.js";

const flush = () => new Promise((resolve) => setImmediate(resolve));

function ends(options: { stopFails?: boolean } = {}) {
  const published: CanonicalEvent[] = [];
  const forgotten: string[] = [];
  const calls = { stopped: 0, released: 0 };
  const logger = recordingLogger();
  const runtime = new RuntimeEnds({
    origin: () => ({ sessionId: "ses_ends", backend: "serve" }),
    logger,
    dispatch: (event) => published.push(event),
    partialText: (turnId) => `partial text of ${turnId}`,
    forgetAwaiting: (inputId) => forgotten.push(inputId),
    stopRun: async () => {
      calls.stopped++;
      if (options.stopFails) throw new Error("no answer");
    },
    runStopped: () => calls.released++,
  });
  const summary = () =>
    published.map((event) =>
      event.type === "turn.ended"
        ? `${event.turnId} ended ${event.data.outcome}/${event.data.reason}`
        : `${event.turnId} ${event.type}`,
    );
  return { runtime, published, forgotten, calls, logger, summary };
}

const running: RunState = { ...initialRunState, running: "turn_a", awaiting: ["in_b"] };
const STALL = { kind: "no-step" as const, afterMs: 60_000, hint: "the model did not answer" };

describe("RuntimeEnds", () => {
  it("a stall ends the running turn, abandons it, and stops the run before held inputs go", async () => {
    const { runtime, published, calls, summary } = ends();
    runtime.stalled(running, STALL);
    expect(summary()).toEqual(["turn_a ended failed/stalled"]);
    expect(published[0]).toMatchObject({
      data: {
        error: { kind: "stalled", message: "the model did not answer" },
        text: "partial text of turn_a",
      },
      native: { backend: "serve", type: "watchdog", id: "watchdog_turn_a_turn.ended" },
    });
    expect(runtime.isAbandoned("turn_a")).toBe(true);
    expect(runtime.isAbandoned("turn_in_b")).toBe(false);
    expect(runtime.stopping).toBe(true);
    expect(calls.stopped).toBe(1);
    await flush();
    expect(runtime.stopping).toBe(false);
    expect(calls.released).toBe(1);
  });

  it("a stall with no turn running ends the first waiting input's turn, opened first", () => {
    const { runtime, forgotten, summary } = ends();
    runtime.stalled({ ...initialRunState, awaiting: ["in_1", "in_2"] }, STALL);
    expect(summary()).toEqual(["turn_in_1 turn.started", "turn_in_1 ended failed/stalled"]);
    expect(forgotten).toEqual(["in_1"]);
    expect(runtime.isAbandoned("turn_in_1")).toBe(true);
  });

  it("a stall of nothing does nothing", () => {
    const { runtime, published, calls } = ends();
    runtime.stalled(initialRunState, STALL);
    expect(published).toEqual([]);
    expect(calls.stopped).toBe(0);
  });

  it("a lost connection ends the running turn and every waiting input's", async () => {
    const { runtime, summary, logger } = ends({ stopFails: true });
    runtime.connectionLost(running, {
      state: "reconnecting",
      since: Date.now() - 60_000,
      attempt: 3,
      reason: "ECONNREFUSED",
    });
    expect(summary()).toEqual([
      "turn_a ended failed/connection-lost",
      "turn_in_b turn.started",
      "turn_in_b ended failed/connection-lost",
    ]);
    expect(runtime.isAbandoned("turn_in_b")).toBe(true);
    await flush();
    expect(logger.entries.map((entry) => entry.message)).toContain(
      "stopping the run after a lost connection failed",
    );
    expect(runtime.stopping).toBe(false);
  });

  it("the server's exit ends what runs, waits and is held, with the server's last lines", () => {
    const { runtime, published, calls, summary } = ends();
    const exit = { code: 1, signal: null, logTail: ["boom"], expected: false };
    runtime.serverExited(running, ["in_held"], exit);
    expect(summary()).toEqual([
      "turn_a ended failed/server-exited",
      "turn_in_b turn.started",
      "turn_in_b ended failed/server-exited",
      "turn_in_held turn.started",
      "turn_in_held ended failed/server-exited",
    ]);
    expect(published[0]).toMatchObject({
      data: { error: { message: "opencode serve exited with code 1; its last lines:\nboom" } },
    });
    expect(runtime.isAbandoned("turn_in_held")).toBe(true);
    // The run died with the server: held inputs need not wait for it to stop.
    expect(calls.stopped).toBe(1);
    expect(runtime.stopping).toBe(false);
  });

  it("a close ends what runs and what never ran, abandoning nothing", () => {
    const { runtime, summary, calls } = ends();
    runtime.closed(running, ["in_held"]);
    expect(summary()).toEqual([
      "turn_a ended failed/session-closed",
      "turn_in_b turn.started",
      "turn_in_b ended failed/session-closed",
      "turn_in_held turn.started",
      "turn_in_held ended failed/session-closed",
    ]);
    expect(runtime.isAbandoned("turn_a")).toBe(false);
    expect(calls.stopped).toBe(0);
  });

  it("an input that waits for the running turn's own start is not ended twice", () => {
    const { runtime, summary } = ends();
    runtime.closed({ ...initialRunState, running: "turn_in_x", awaiting: ["in_x"] }, []);
    expect(summary()).toEqual(["turn_in_x ended failed/session-closed"]);
  });

  it("a refused held input and a blind adoption end their turns for their own reasons", () => {
    const { runtime, published, summary } = ends();
    runtime.sendFailed("in_1", new Error("server went away"));
    runtime.bridgeRestarted("turn_a");
    expect(summary()).toEqual([
      "turn_in_1 turn.started",
      "turn_in_1 ended failed/send-failed",
      "turn_a ended failed/bridge-restarted",
    ]);
    expect(published[1]).toMatchObject({
      data: { error: { message: expect.stringContaining("server went away") } },
    });
    expect(published[2]).toMatchObject({
      data: { error: { message: expect.stringContaining("the serve backend cannot replay") } },
    });
  });
});
