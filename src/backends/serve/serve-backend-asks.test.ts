/**
 * The serve backend's asks against the two streams in the order a loaded machine delivers
 * them: the live `question.v2.asked` before the durable stream has shown the turn at all (seen
 * on a real 1.18.33 server under CPU load: the durable stream sent the prompt's admission,
 * start and tool call in one burst, a millisecond after the live ask). The native events are
 * the recorded ones (`api-question-answered`); only their interleaving is forced here. And a
 * run stopped by a rejected question (`api-question-rejected`), which 1.18 ends with no step
 * end, on a server slow to let the run go.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { handFedServeBackend } from "../../../test/support/hand-fed-serve-backend.js";
import { HandFedTransport, recordedEvents } from "../../../test/support/hand-fed-transport.js";
import { turnIdFor } from "../../events/turn-state.js";
import type { Transport } from "../../transport/transport.js";
import type { ServeBackend } from "./serve-backend.js";

/** The recorded native events of one stream of the fixture, in order. */
function recorded(
  stream: "v2.event.subscribe" | "v2.session.events",
  scenario = "api-question-answered",
): Record<string, unknown>[] {
  return recordedEvents(scenario, stream);
}

const backends: ServeBackend[] = [];
afterEach(async () => {
  for (const backend of backends.splice(0)) await backend.close();
});

/** A serve backend on `transport` for the fixture's session, and the events it publishes. */
function backendOn(transport: Transport, scenario?: string) {
  const first = recorded("v2.session.events", scenario)[0] as { data: { sessionID: string } };
  const sessionId = first.data.sessionID;
  const made = handFedServeBackend(transport, sessionId);
  backends.push(made.backend);
  return made;
}

describe("serve backend asks, the live stream ahead of the durable one", () => {
  const live = recorded("v2.event.subscribe");
  const durable = recorded("v2.session.events");
  const ask = live.find((event) => event.type === "question.v2.asked");
  const callIndex = durable.findIndex((event) => event.type === "session.next.tool.called");
  const admitted = durable[0] as { data: { messageID: string } };

  it("an ask that arrives before its turn has started is published in that turn, after its call", async () => {
    const transport = new HandFedTransport();
    const { published, until } = backendOn(transport);
    transport.feed("v2.event.subscribe", [{ type: "server.connected", data: {} }, ask]);
    await transport.drained("v2.event.subscribe");
    transport.feed("v2.session.events", durable.slice(0, callIndex + 1));
    await until("waiting for the question ask and the tool call", () =>
      ["question.asked", "tool.called"].every((type) => published.some((e) => e.type === type)),
    );
    // Whoever reads the turn sees its ask (before the fix it went out with no turn at all).
    const asks = published.filter((event) => event.type === "question.asked");
    expect(asks.map((event) => event.turnId)).toEqual([turnIdFor(admitted.data.messageID)]);
    const types = published.map((event) => event.type);
    expect(types.indexOf("question.asked")).toBe(types.indexOf("tool.called") + 1);
  });

  it("an ask after its call keeps the call's turn", async () => {
    const transport = new HandFedTransport();
    const { published, until } = backendOn(transport);
    transport.feed("v2.session.events", durable.slice(0, callIndex + 1));
    await until("waiting for the tool call", () =>
      published.some((event) => event.type === "tool.called"),
    );
    transport.feed("v2.event.subscribe", [ask]);
    await until("waiting for the question ask", () =>
      published.some((event) => event.type === "question.asked"),
    );
    const question = published.find((event) => event.type === "question.asked");
    expect(question?.turnId).toBe(turnIdFor(admitted.data.messageID));
  });
});

describe("serve backend, a run stopped by a rejected question", () => {
  const scenario = "api-question-rejected";
  const durable = recorded("v2.session.events", scenario);
  const failedIndex = durable.findIndex((event) => event.type === "session.next.tool.failed");

  afterEach(() => {
    vi.useRealTimers();
  });

  it("asks again whether the run stopped while the server still says it runs", async () => {
    vi.useFakeTimers();
    const transport = new HandFedTransport();
    const { published } = backendOn(transport, scenario);
    const sessionId = (durable[0] as { data: { sessionID: string } }).data.sessionID;
    // A loaded server is slow to let the stopped run go: still active at the first check.
    transport.answers.set("v2.session.active", [{ data: { [sessionId]: {} } }, { data: {} }]);
    // Up to the call's failure ("Tool execution interrupted"): no step end follows on 1.18.
    transport.feed("v2.session.events", durable.slice(0, failedIndex + 1));
    await vi.advanceTimersByTimeAsync(0);
    expect(published.map((event) => event.type)).toContain("tool.failed");
    await vi.advanceTimersByTimeAsync(1_000);
    expect(transport.calls.filter((call) => call === "v2.session.active")).toHaveLength(1);
    expect(published.map((event) => event.type)).not.toContain("turn.ended");
    await vi.advanceTimersByTimeAsync(1_000);
    const ended = published.filter((event) => event.type === "turn.ended");
    expect(ended.map((event) => event.type === "turn.ended" && event.data.outcome)).toEqual([
      "interrupted",
    ]);
  });
});
