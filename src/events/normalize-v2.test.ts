/** The 2.0 normaliser on the recorded 2.0.18 session of seed 000 (a replay). */
import { describe, expect, it } from "vitest";
import { recordedEvents } from "../../test/support/fixture-events.js";
import { fixturePath } from "../../test/support/fixture-files.js";
import { parseV2Event } from "../opencode-protocol/v2/events.js";
import type { CanonicalEvent } from "./canonical.js";
import { initialV2State, normalizeV2Event } from "./normalize-v2.js";

function normalizeSeed(): CanonicalEvent[] {
  let state = initialV2State("ses_f148c8240ffegmJ5ZhqhyYOcSH");
  const out: CanonicalEvent[] = [];
  for (const raw of recordedEvents(fixturePath("opencode-2.0.18/interrupt.transcript.ndjson"))) {
    const result = normalizeV2Event(state, parseV2Event(raw));
    state = result.state;
    out.push(...result.events);
  }
  return out;
}

describe("normalizeV2Event on seed 000", () => {
  const events = normalizeSeed();
  const types = events.map((event) => event.type);

  it("yields turn.started … tool.called … tool.failed … turn.ended {interrupted}", () => {
    const turnEvents = types.filter((type) =>
      ["turn.started", "tool.called", "tool.failed", "turn.ended"].includes(type),
    );
    expect(turnEvents).toEqual(["turn.started", "tool.called", "tool.failed", "turn.ended"]);
    const ended = events.find((event) => event.type === "turn.ended");
    expect(ended?.data).toMatchObject({
      outcome: "interrupted",
      reason: "user",
      text: "I'll run that now.",
    });
  });

  it("keeps the whole durable sequence, with nothing dropped", () => {
    expect(types).toEqual([
      "native.unknown", // server.connected
      "session.created",
      "input.admitted",
      "turn.started",
      "native.unknown", // session.instructions.updated
      "input.delivered",
      "step.started",
      "text.started",
      "text.delta",
      "text.delta",
      "tool.input.started",
      "tool.input.ended",
      "tool.called",
      "text.ended",
      "native.unknown", // session.step.streamed
      "native.unknown", // shell.created
      "tool.progress",
      "native.unknown", // shell.deleted
      "tool.failed",
      "native.unknown", // shell.exited
      "step.failed",
      "usage.updated",
      "turn.ended",
    ]);
  });

  it("puts every event of the execution in one turn, named by the input that started it", () => {
    const started = events.findIndex((event) => event.type === "turn.started");
    const ended = events.findIndex((event) => event.type === "turn.ended");
    const turnIds = new Set(events.slice(started, ended + 1).map((event) => event.turnId));
    expect([...turnIds]).toEqual(["turn_msg_0eb737de3001m3HJF1mWJrpc0l"]);
    expect(events.find((event) => event.type === "tool.called")?.data).toMatchObject({
      tool: "shell",
      input: { command: "sleep 60 && echo LATE" },
    });
  });

  it("gives stable ids: normalising twice gives the same events", () => {
    expect(normalizeSeed()).toEqual(events);
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
  });
});
