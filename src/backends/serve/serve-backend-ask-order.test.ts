/**
 * A 1.18 `/api` permission ask gets its diff computed before it goes out; it must still go out
 * in order, behind whatever the delta catch-up holds (a part's end waiting for its deltas, and
 * the events behind it, the ask's own tool call among them): an ask comes after its call.
 * Recorded native events (`api-permission-once`); the live stream loses one tool-input delta
 * without reconnecting, so the input's end waits for the catch-up bound.
 */
import { afterEach, describe, expect, it } from "vitest";
import { handFedServeBackend } from "../../../test/support/hand-fed-serve-backend.js";
import { HandFedTransport, recordedEvents } from "../../../test/support/hand-fed-transport.js";
import type { ServeBackend } from "./serve-backend.js";

const SCENARIO = "api-permission-once";

const backends: ServeBackend[] = [];
afterEach(async () => {
  for (const backend of backends.splice(0)) await backend.close();
});

describe("serve backend, a permission ask behind a held part end", () => {
  const live = recordedEvents(SCENARIO, "v2.event.subscribe");
  const durable = recordedEvents(SCENARIO, "v2.session.events");
  const sessionId = (durable[0] as { data: { sessionID: string } }).data.sessionID;

  it("goes out after its tool call, not ahead of what is held", async () => {
    const transport = new HandFedTransport();
    const { backend, published, until } = handFedServeBackend(transport, sessionId);
    backends.push(backend);
    const deltas = live.filter((event) => event.type === "session.next.tool.input.delta");
    const ask = live.find((event) => event.type === "permission.v2.asked");
    expect(deltas.length).toBeGreaterThan(1);
    // The live side: connected, the prompt's admission (the connection delivers from before
    // the turn), the first delta only (the second is lost), then the ask.
    const admitted = live.find((event) => event.type === "session.next.prompt.admitted");
    transport.feed("v2.event.subscribe", [
      { type: "server.connected", data: {} },
      admitted,
      deltas[0],
      ask,
    ]);
    await transport.drained("v2.event.subscribe");
    const callIndex = durable.findIndex((event) => event.type === "session.next.tool.called");
    transport.feed("v2.session.events", durable.slice(0, callIndex + 1));
    const both = () =>
      ["permission.asked", "tool.called"].every((type) => published.some((e) => e.type === type));
    await until("waiting for the ask", both, 10_000);
    const types = published.map((event) => event.type);
    expect(types.indexOf("permission.asked")).toBeGreaterThan(types.indexOf("tool.called"));
    expect(types.indexOf("tool.input.ended")).toBeLessThan(types.indexOf("tool.called"));
    // The lost delta was the input's tail: it goes out made from the end.
    expect(backend.deltaStats()).toEqual({
      completedParts: 1,
      incompleteParts: 0,
      droppedDeltas: 0,
      liveReconnects: 0,
    });
  });
});
