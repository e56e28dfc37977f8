/**
 * The turns the runtime ends itself, on their own: which turns each reason ends, with which
 * events, which are abandoned (their late events dropped), and when the upstream run is
 * stopped with held inputs waiting for it.
 */
import { describe, expect, it } from "vitest";
import { canonicalEvent } from "../../../test/support/canonical-event.js";
import { recordingLogger } from "../../../test/support/recording-logger.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import { RuntimeEnds } from "./runtime-ends.js";
import { SessionState } from "./session-state.js";

/**
 * A session state in which `running` runs (started by no input of its own) and `awaiting`
 * inputs wait for their turns.
 */
function stateWith(run: { running?: string; awaiting?: string[] } = {}): SessionState {
  const state = new SessionState("ses_ends");
  if (run.running !== undefined) state.track(canonicalEvent(run.running, "turn.started", {}));
  for (const inputId of run.awaiting ?? []) state.awaiting(inputId);
  return state;
}

function ends(options: { stopFails?: boolean; state?: SessionState } = {}) {
  const published: CanonicalEvent[] = [];
  const calls = { stopped: 0 };
  const logger = recordingLogger();
  const state = options.state ?? stateWith({ running: "turn_a", awaiting: ["in_b"] });
  const runtime = new RuntimeEnds({
    state,
    turns: { partialText: (turnId) => `partial text of ${turnId}` },
    logger,
    backend: () => ({
      kind: "serve",
      abandonTurn: async () => {
        calls.stopped++;
        if (options.stopFails) throw new Error("no answer");
      },
    }),
    dispatch: (event) => published.push(event),
  });
  const summary = () =>
    published.map((event) =>
      event.type === "turn.ended"
        ? `${event.turnId} ended ${event.data.outcome}/${event.data.reason}`
        : `${event.turnId} ${event.type}`,
    );
  return { runtime, state, published, calls, logger, summary };
}

const STALL = { kind: "no-step" as const, afterMs: 60_000, hint: "the model did not answer" };

describe("RuntimeEnds", () => {
  it("a stall ends the running turn, abandons it, and stops the run before held inputs go", async () => {
    const { runtime, state, published, calls, summary } = ends();
    const stop = runtime.stalled(STALL);
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
    expect(state.stopping).toBe(true);
    expect(state.free).toBe(false);
    expect(calls.stopped).toBe(1);
    await stop;
    expect(state.stopping).toBe(false);
  });

  it("a stall with no turn running ends the first waiting input's turn, opened first", () => {
    const { runtime, state, summary } = ends({ state: stateWith({ awaiting: ["in_1", "in_2"] }) });
    runtime.stalled(STALL);
    expect(summary()).toEqual(["turn_in_1 turn.started", "turn_in_1 ended failed/stalled"]);
    expect(state.run.awaiting).toEqual(["in_2"]);
    expect(runtime.isAbandoned("turn_in_1")).toBe(true);
  });

  it("a stall of nothing does nothing", () => {
    const { runtime, state, published, calls } = ends({ state: stateWith() });
    expect(runtime.stalled(STALL)).toBeUndefined();
    expect(published).toEqual([]);
    expect(state.stopping).toBe(false);
    expect(calls.stopped).toBe(0);
  });

  it("a lost connection ends the running turn and every waiting input's", async () => {
    const { runtime, state, summary, logger } = ends({ stopFails: true });
    const stop = runtime.connectionLost({
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
    expect(state.run.awaiting).toEqual([]);
    await stop;
    expect(logger.entries.map((entry) => entry.message)).toContain(
      "stopping the run after a lost connection failed",
    );
    expect(state.stopping).toBe(false);
  });

  it("the server's exit ends what runs, waits and is held, with the server's last lines", () => {
    const { runtime, state, published, calls, summary } = ends();
    const exit = { code: 1, signal: null, logTail: ["boom"], expected: false };
    runtime.serverExited(["in_held"], exit);
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
    expect(state.stopping).toBe(false);
  });

  it("a close ends what runs and what never ran, abandoning nothing", () => {
    const { runtime, summary, calls } = ends();
    runtime.closed(["in_held"]);
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
    const { runtime, summary } = ends({
      state: stateWith({ running: "turn_in_x", awaiting: ["in_x"] }),
    });
    runtime.closed([]);
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
