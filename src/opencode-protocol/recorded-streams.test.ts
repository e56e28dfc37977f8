/**
 * The wire schemas against streams recorded from real servers (replays, not live):
 * the 1.18.5 legacy `/event` stream of seed 003 and the 2.0.18 transcript of seed 000.
 */
import { describe, expect, it } from "vitest";
import { readNdjson } from "../../test/support/fixture-files.js";
import { parseLegacyEvent } from "./legacy/events.js";
import { parseV2Event } from "./v2/events.js";

describe("legacy /event frames recorded from 1.18.5", () => {
  const frames = readNdjson("opencode-1.18.5/ping.events.ndjson");

  it("parses every frame as a known, valid event", () => {
    expect(frames.length).toBeGreaterThan(20);
    for (const frame of frames) {
      const parsed = parseLegacyEvent(frame);
      expect(parsed, JSON.stringify(frame).slice(0, 200)).toMatchObject({ known: true });
    }
  });

  it("keeps the part snapshot and the deltas typed", () => {
    const texts = frames
      .map(parseLegacyEvent)
      .flatMap((parsed) =>
        parsed.known &&
        parsed.event.type === "message.part.updated" &&
        parsed.event.properties.part.type === "text"
          ? [parsed.event.properties.part.text]
          : [],
      );
    expect(texts).toContain("ping");
  });
});

describe("OpenCode 2.0.18 events recorded in seed 000", () => {
  const events = readNdjson("opencode-2.0.18/interrupt.transcript.ndjson").flatMap((entry) => {
    const frame = (entry as { frame?: { type?: string; event?: unknown } }).frame;
    return frame?.type === "sdk.event" ? [frame.event] : [];
  });

  it("parses every session event as known and passes the shell events through", () => {
    const unknownTypes = new Set<string>();
    for (const event of events) {
      const parsed = parseV2Event(event);
      if (parsed.known) continue;
      expect(parsed.issues, parsed.event.type).toBeUndefined();
      unknownTypes.add(parsed.event.type);
    }
    expect([...unknownTypes].sort()).toEqual(["shell.created", "shell.deleted", "shell.exited"]);
  });

  it("ends the execution with exactly one terminal event", () => {
    const terminal = events
      .map(parseV2Event)
      .filter((parsed) => parsed.known && parsed.event.type.startsWith("session.execution."))
      .map((parsed) => parsed.event.type);
    expect(terminal).toEqual(["session.execution.started", "session.execution.interrupted"]);
  });
});
