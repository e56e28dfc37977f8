/**
 * The serve backend remembers an ask's tool call only while it can matter: a rejected
 * question's call fails, named as the rejection, and then nothing of the ask is kept
 * (recorded native events of `api-question-rejected`).
 */
import { afterEach, describe, expect, it } from "vitest";
import { handFedServeBackend } from "../../../test/support/hand-fed-serve-backend.js";
import { HandFedTransport, recordedEvents } from "../../../test/support/hand-fed-transport.js";
import type { ServeBackend } from "./serve-backend.js";

const SCENARIO = "api-question-rejected";

const backends: ServeBackend[] = [];
afterEach(async () => {
  for (const backend of backends.splice(0)) await backend.close();
});

describe("serve backend ask bookkeeping", () => {
  const live = recordedEvents(SCENARIO, "v2.event.subscribe");
  const durable = recordedEvents(SCENARIO, "v2.session.events");
  const ask = live.find((event) => event.type === "question.v2.asked");
  const calledIndex = durable.findIndex((event) => event.type === "session.next.tool.called");
  const failedIndex = durable.findIndex((event) => event.type === "session.next.tool.failed");

  /** A backend on hand-fed streams showing the question of the recorded turn. */
  async function questionShown() {
    const transport = new HandFedTransport();
    const sessionId = (durable[0] as { data: { sessionID: string } }).data.sessionID;
    const { backend, published, until } = handFedServeBackend(transport, sessionId);
    backends.push(backend);

    transport.feed("v2.session.events", durable.slice(0, calledIndex + 1));
    transport.feed("v2.event.subscribe", [{ type: "server.connected", data: {} }, ask]);
    await until("waiting for the question", () =>
      published.some((event) => event.type === "question.asked"),
    );
    const question = published.find((event) => event.type === "question.asked");
    if (question?.type !== "question.asked") throw new Error("no question");
    return { transport, backend, published, until, question };
  }

  it("forgets a rejected question once its call has failed", async () => {
    const { transport, backend, published, until, question } = await questionShown();
    expect(backend.askEntries()).toEqual({ asks: 1, refusals: 0 });
    transport.answers.set("v2.session.question.reject", [{ data: undefined }]);

    await backend.rejectQuestion(question.data.requestId);
    transport.feed("v2.session.events", durable.slice(calledIndex + 1, failedIndex + 1));
    await until("waiting for the call's failure", () =>
      published.some((event) => event.type === "tool.failed"),
    );
    const failed = published.find((event) => event.type === "tool.failed");
    expect(failed?.type === "tool.failed" && failed.data.error.kind).toBe("question-rejected");
    expect(backend.askEntries()).toEqual({ asks: 0, refusals: 0 });
  });

  it("forgets an open question of a turn the session abandoned", async () => {
    const { transport, backend } = await questionShown();
    transport.answers.set("v2.session.interrupt", [{ data: undefined }]);
    await backend.abandonTurn();
    expect(backend.askEntries()).toEqual({ asks: 0, refusals: 0 });
  });
});
