/**
 * A frame that failed its schema still reaches its normaliser (as `native.unknown`), so the
 * fields every event's envelope is made of (its id, its time, its durable seq) may be of any
 * type there, or out of range (JSON's `1e999` is Infinity); and a field a schema leaves untyped
 * may be anything. The event made of it must still be a valid canonical event. Found by the
 * reliability fuzzer (`npm run reliability -- --only fuzz`).
 */
import { describe, expect, it } from "vitest";
import { parseApiEvent } from "../opencode-protocol/api/events.js";
import { parseLegacyEvent } from "../opencode-protocol/legacy/events.js";
import { parseRunLine } from "../opencode-protocol/run/events.js";
import { parseV2Event } from "../opencode-protocol/v2/events.js";
import { CanonicalEventSchema } from "../wire/canonical-schema.js";
import type { CanonicalEvent } from "./canonical.js";
import { initialApiState, normalizeApiEvent } from "./normalize-api.js";
import { initialLegacyState, normalizeLegacyEvent } from "./normalize-legacy.js";
import { initialRunState, normalizeRunLine } from "./normalize-run.js";
import { initialV2State, normalizeV2Event } from "./normalize-v2.js";

const SESSION = "ses_1";

/** `text` parsed as JSON, as a transport does: `1e999` becomes Infinity. */
const wire = (text: string): unknown => JSON.parse(text);

function expectValidUnknown(events: readonly CanonicalEvent[]): void {
  expect(events.map((event) => event.type)).toEqual(["native.unknown"]);
  const checked = CanonicalEventSchema.safeParse(events[0]);
  expect(checked.success ? [] : checked.error.issues).toEqual([]);
}

describe("an event that failed its schema, with odd envelope fields, is a valid native.unknown", () => {
  it("/api: a number id, an infinite seq and time", () => {
    const frame = wire(
      '{"type":"session.next.prompted","id":7,"durable":{"seq":1e999},"data":{"timestamp":1e999}}',
    );
    const { events } = normalizeApiEvent(initialApiState(SESSION), parseApiEvent(frame));
    expectValidUnknown(events);
    expect(events[0]?.native).toEqual({ backend: "serve", type: "session.next.prompted" });
  });

  it("legacy /event: an object id and an infinite time", () => {
    const frame = wire(
      `{"type":"message.part.updated","id":{"x":1},"properties":{"sessionID":"${SESSION}","time":1e999}}`,
    );
    const { events } = normalizeLegacyEvent(initialLegacyState(SESSION), parseLegacyEvent(frame));
    expectValidUnknown(events);
  });

  it("2.0: a string time", () => {
    const frame = wire('{"type":"session.created","id":"evt_1","created":"yesterday"}');
    const { events } = normalizeV2Event(initialV2State(SESSION), parseV2Event(frame));
    expectValidUnknown(events);
    expect(events[0]?.at).toBe(0);
  });

  it("opencode run: an infinite timestamp", () => {
    const frame = wire('{"type":"text","timestamp":1e999,"sessionID":"ses_up"}');
    const { events } = normalizeRunLine(initialRunState(SESSION), parseRunLine(frame));
    expectValidUnknown(events);
  });

  it("2.0: a tool's progress whose metadata is an array carries no metadata", () => {
    // The 2.0 schema does not type `metadata`; the canonical event wants a record.
    const frame = {
      type: "session.tool.progress",
      id: "evt_1",
      created: 5,
      data: { sessionID: SESSION, assistantMessageID: "msg_1", id: "call_1", metadata: [1] },
    };
    const parsed = parseV2Event(frame);
    expect(parsed.known).toBe(true);
    const { events } = normalizeV2Event(initialV2State(SESSION), parsed);
    const progress = events.find((event) => event.type === "tool.progress");
    expect(progress?.data).toEqual({ callId: "call_1" });
    for (const event of events) {
      const checked = CanonicalEventSchema.safeParse(event);
      expect(checked.success ? [] : checked.error.issues).toEqual([]);
    }
  });
});
