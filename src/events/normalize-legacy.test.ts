/**
 * The legacy `/event` normaliser on streams recorded from real servers (replays): seed 003's
 * 1.18.5 "ping" turn, and the legacy 1.18.33 fixtures (as snapshots).
 */
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { recordedEvents } from "../../test/support/fixture-events.js";
import { fixturePath, readNdjson } from "../../test/support/fixture-files.js";
import { normalizeLegacyFrames } from "../../test/support/legacy-events.js";

const normalize = normalizeLegacyFrames;

describe("normalizeLegacyEvent", () => {
  it("turns seed 003's 1.18.5 stream into a completed turn with reasoning, the text 'ping' and usage", () => {
    const events = normalize(readNdjson("opencode-1.18.5/ping.events.ndjson"));
    const ended = events.filter((event) => event.type === "turn.ended");
    expect(ended).toHaveLength(1);
    expect(ended[0]?.data).toMatchObject({
      outcome: "completed",
      text: "ping",
      usage: { tokens: { input: 523, output: 4, reasoning: 36, cacheRead: 8192 } },
    });
    const reasoning = events.find((event) => event.type === "reasoning.ended");
    expect(reasoning?.data).toMatchObject({ text: expect.stringContaining('single word "ping"') });
    const deltas = events.filter(
      (event) => event.type === "reasoning.delta" || event.type === "text.delta",
    );
    expect(deltas.length).toBeGreaterThan(5);
    expect(events.map((event) => event.type).filter((type) => type.startsWith("turn."))).toEqual([
      "turn.started",
      "turn.ended",
    ]);
    expect(events.find((event) => event.type === "input.admitted")?.data).toMatchObject({
      text: "Reply with the single word: ping",
    });
  });

  it("a summarize's session.compacted (as 1.18.33 sends it) becomes session.compacted, durable, in no turn", () => {
    const events = normalize([
      {
        id: "evt_1",
        type: "session.compacted",
        properties: { sessionID: "ses_legacy" },
      },
    ]);
    expect(events).toEqual([
      expect.objectContaining({ type: "session.compacted", durable: true, data: {} }),
    ]);
    expect(events[0]?.turnId).toBeUndefined();
  });

  const fixtures = readdirSync(fixturePath("opencode-1.18.33"))
    .filter((file) => file.startsWith("legacy-") && file.endsWith(".transcript.ndjson"))
    .sort();

  it.each(fixtures)("normalises the recorded %s to one end per start (snapshot)", (file) => {
    const events = normalize(recordedEvents(fixturePath(`opencode-1.18.33/${file}`)));
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === "turn.ended").length).toBe(
      types.filter((type) => type === "turn.started").length,
    );
    const summary = events
      .filter(
        (event) =>
          event.durable && event.type !== "native.unknown" && event.type !== "session.updated",
      )
      .map((event) =>
        event.type === "turn.ended"
          ? `turn.ended ${event.data.outcome} ${JSON.stringify(event.data.text)}`
          : event.type,
      );
    expect(summary).toMatchSnapshot();
  });

  it("turns the todo list (todo.updated) into the durable todo.updated", () => {
    const todos = [{ content: "Write the tests", status: "pending", priority: "medium" }];
    const events = normalize([
      { type: "todo.updated", properties: { sessionID: "ses_test", todos } },
    ]);
    expect(events).toEqual([
      expect.objectContaining({ type: "todo.updated", durable: true, data: { todos } }),
    ]);
  });
});
