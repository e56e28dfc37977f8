/**
 * A live reconnect just as a reply's text part starts: OpenCode makes the new connection's
 * `server.connected` before its subscription delivers, so the part can start after that
 * event and still lose its first deltas (the reliability suite's upstream-cuts run on a clean
 * clone streamed "… tok7 tok8" for "tok1 tok2 …"; measured on the real server: events made
 * 20 to 170 ms after `server.connected` missing from its connection, none made after the first
 * event it passed on). The part must go out from its first character or whole from its end.
 * A replay of recorded native events (`api-permission-always`, its second turn) through the
 * real backend code, in the order that failed; not end to end.
 */
import { afterEach, describe, expect, it } from "vitest";
import { handFedServeBackend } from "../../../test/support/hand-fed-serve-backend.js";
import { HandFedTransport, recordedEvents } from "../../../test/support/hand-fed-transport.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import type { ServeBackend } from "./serve-backend.js";

const SCENARIO = "api-permission-always";

const backends: ServeBackend[] = [];
afterEach(async () => {
  for (const backend of backends.splice(0)) await backend.close();
});

/** The text each text part's deltas join to, and its end's text, in order. */
function textParts(published: CanonicalEvent[]): { deltas: string; ended: string }[] {
  return published.flatMap((event) => {
    if (event.type !== "text.ended") return [];
    const deltas = published
      .filter((e) => e.type === "text.delta" && e.data.partId === event.data.partId)
      .map((e) => (e.type === "text.delta" ? e.data.delta : ""))
      .join("");
    return [{ deltas, ended: event.data.text }];
  });
}

describe("serve backend, a live connection that missed a part's first deltas", () => {
  const live = recordedEvents(SCENARIO, "v2.event.subscribe");
  const durable = recordedEvents(SCENARIO, "v2.session.events");
  const sessionId = (durable[0] as { data: { sessionID: string } }).data.sessionID;

  it("hands the part out whole from its end, not from its second delta", async () => {
    const transport = new HandFedTransport();
    const { backend, published, until } = handFedServeBackend(transport, sessionId);
    backends.push(backend);
    // The second connection, made before the second turn's reply began; of the reply's three
    // deltas the first was made before the subscription delivered: the connection passes on
    // the other two only.
    const connected = live.filter((event) => event.type === "server.connected")[1];
    const replyDeltas = live.filter((event) => event.type === "session.next.text.delta");
    const textStarted = durable.filter((event) => event.type === "session.next.text.started")[1];
    expect(replyDeltas).toHaveLength(3);
    expect(String(connected?.id) < String(textStarted?.id)).toBe(true);
    expect(String(textStarted?.id) < String(replyDeltas[0]?.id)).toBe(true);
    transport.feed("v2.event.subscribe", [connected, ...replyDeltas.slice(1)]);
    await transport.drained("v2.event.subscribe");
    transport.feed("v2.session.events", durable);
    await until(
      "waiting for the turns' ends",
      () => published.filter((event) => event.type === "turn.ended").length === 2,
    );
    const parts = textParts(published);
    expect(parts).toHaveLength(2);
    for (const part of parts) expect(part.deltas).toBe(part.ended);
    expect(backend.deltaStats()).toMatchObject({ incompleteParts: 0, droppedDeltas: 2 });
  });
});
