/**
 * The wire schemas against real data: every canonical event the recorded 1.18.33 `/api`
 * fixtures normalise to passes `CanonicalEventSchema` unchanged (JSON round trip), and the
 * WebSocket messages parse as documented. The schemas' types are checked against the
 * hand-written ones at compile time (canonical-schema.ts); this checks the runtime side.
 */
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { recordedEvents } from "../../test/support/fixture-events.js";
import { fixturePath } from "../../test/support/fixture-files.js";
import type { CanonicalEvent } from "../events/canonical.js";
import { CANONICAL_TYPES } from "../events/canonical.js";
import { initialApiState, normalizeApiEvent } from "../events/normalize-api.js";
import { parseApiEvent } from "../opencode-protocol/api/events.js";
import { CanonicalEventSchema, canonicalEventSchemas } from "./canonical-schema.js";
import { ClientMessageSchema, ServerMessageSchema } from "./ws.js";

const DIRECTORY = "opencode-1.18.33";

function fixtureEvents(): CanonicalEvent[] {
  const files = readdirSync(fixturePath(DIRECTORY)).filter(
    (file) => file.startsWith("api-") && file.endsWith(".transcript.ndjson"),
  );
  return files.flatMap((file) => {
    let state = initialApiState("ses");
    const events: CanonicalEvent[] = [];
    for (const raw of recordedEvents(fixturePath(`${DIRECTORY}/${file}`))) {
      const result = normalizeApiEvent(state, parseApiEvent(raw));
      state = result.state;
      events.push(...result.events);
    }
    return events;
  });
}

describe("CanonicalEventSchema", () => {
  const events = fixtureEvents();

  it("has a schema for every canonical type", () => {
    expect(Object.keys(canonicalEventSchemas).sort()).toEqual([...CANONICAL_TYPES].sort());
  });

  it("passes every event of the recorded fixtures unchanged", () => {
    expect(events.length).toBeGreaterThan(100);
    for (const event of events) {
      const wire = JSON.parse(JSON.stringify(event)) as unknown;
      const parsed = CanonicalEventSchema.safeParse(wire);
      expect(parsed.error, `${event.type} ${JSON.stringify(event).slice(0, 200)}`).toBeUndefined();
      expect(parsed.data).toEqual(wire);
    }
    expect(new Set(events.map((event) => event.type)).size).toBeGreaterThan(15);
  });

  it("refuses an event whose data does not fit its type, or whose durable flag is wrong", () => {
    const base = { id: "e", sessionId: "s", at: 1, type: "text.ended", durable: true };
    expect(
      CanonicalEventSchema.safeParse({ ...base, data: { partId: "p", text: "t" } }).success,
    ).toBe(true);
    expect(CanonicalEventSchema.safeParse({ ...base, data: { partId: "p" } }).success).toBe(false);
    expect(
      CanonicalEventSchema.safeParse({ ...base, durable: false, data: { partId: "p", text: "t" } })
        .success,
    ).toBe(false);
    expect(CanonicalEventSchema.safeParse({ ...base, type: "text.nope", data: {} }).success).toBe(
      false,
    );
  });
});

describe("WebSocket messages", () => {
  it("parses the client's messages strictly", () => {
    expect(ClientMessageSchema.parse({ type: "subscribe", sessionId: "s", after: 3 })).toEqual({
      type: "subscribe",
      sessionId: "s",
      after: 3,
    });
    expect(
      ClientMessageSchema.safeParse({ type: "subscribe", sessionId: "s", after: -1 }).success,
    ).toBe(false);
    expect(
      ClientMessageSchema.safeParse({ type: "subscribe", sessionId: "s", afer: 1 }).success,
    ).toBe(false);
    expect(ClientMessageSchema.safeParse({ type: "ping", id: 7 }).success).toBe(true);
    expect(ClientMessageSchema.safeParse({ type: "hello" }).success).toBe(false);
  });

  it("parses the server's messages, events included", () => {
    const event = {
      id: "e",
      seq: 4,
      sessionId: "s",
      at: 1,
      type: "turn.started",
      data: {},
      durable: true,
    };
    for (const message of [
      { type: "event", sessionId: "s", event },
      { type: "caught-up", sessionId: "s", seq: 4 },
      { type: "dropped", sessionId: "s", count: 12 },
      { type: "pong", id: "p" },
      { type: "error", error: { code: "not_found", message: "no session" } },
    ]) {
      expect(ServerMessageSchema.safeParse(message).error).toBeUndefined();
    }
  });
});
