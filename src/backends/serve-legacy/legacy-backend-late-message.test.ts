/**
 * The legacy backend when the server is slow to publish a prompt's user message: seen on a
 * real 1.18.33 server under CPU load, the message came more than 5 s after `prompt_async`,
 * after the backend had stopped expecting it; the turn it started was then named after the
 * message, not the input, and the caller's turn (named after the input) never saw an event.
 * The native events are the recorded ones (`legacy-question-answered`); only their timing is
 * forced here.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { HandFedTransport, recordedEvents } from "../../../test/support/hand-fed-transport.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import {
  initialLegacyState,
  legacyPromptLate,
  legacyPromptSent,
  normalizeLegacyEvent,
} from "../../events/normalize-legacy.js";
import { turnIdFor } from "../../events/turn-state.js";
import { OpencodeClient } from "../../opencode-client/opencode-client.js";
import { parseLegacyEvent } from "../../opencode-protocol/legacy/events.js";
import { silentLogger } from "../../util/logger.js";
import { LegacyBackend } from "./legacy-backend.js";

const STREAM = "event.subscribe";
const events = recordedEvents("legacy-question-answered", STREAM);
const userText = events.flatMap((event) => {
  const part = (event.properties as { part?: { type?: string; text?: string; messageID?: string } })
    ?.part;
  return event.type === "message.part.updated" && part?.type === "text" ? [part.text ?? ""] : [];
})[0];
const created = events.find((event) => event.type === "session.created");
const sessionId = String((created?.properties as { sessionID?: string } | undefined)?.sessionID);
const upToAsk = events.slice(0, events.findIndex((event) => event.type === "question.asked") + 1);

describe("legacy backend, a user message later than the prompt's wait", () => {
  const backends: LegacyBackend[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    for (const backend of backends.splice(0)) await backend.close();
  });

  function backendOn(transport: HandFedTransport) {
    const published: CanonicalEvent[] = [];
    const backend = new LegacyBackend(
      new OpencodeClient(transport, { directory: "/work/dir" }),
      {
        sessionId,
        directory: "/work/dir",
        logger: silentLogger,
        sink: (event) => published.push(event),
        childSink: () => {},
        connection: () => {},
      },
      { model: { providerID: "demo", modelID: "demo-1" } },
    );
    backends.push(backend);
    return { backend, published };
  }

  it("still gives the late message, and the turn it starts, the input's id", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const transport = new HandFedTransport();
    const { backend, published } = backendOn(transport);
    const prompt = backend.prompt({ text: userText ?? "", delivery: "queue", inputId: "in_late" });
    // The server takes the prompt, and publishes nothing for longer than the backend waits.
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(prompt).resolves.toEqual({ inputId: "in_late" });
    transport.feed(STREAM, upToAsk);
    await transport.drained(STREAM);
    const turnId = turnIdFor("in_late");
    const admitted = published.find((event) => event.type === "input.admitted");
    expect(admitted?.data).toMatchObject({ inputId: "in_late" });
    const started = published.find((event) => event.type === "turn.started");
    expect(started?.turnId).toBe(turnId);
    const asked = published.find((event) => event.type === "question.asked");
    expect(asked?.turnId).toBe(turnId);
  });

  it("does not give a late input's id to a message with another text", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const transport = new HandFedTransport();
    const { backend, published } = backendOn(transport);
    const prompt = backend.prompt({
      text: "something else",
      delivery: "queue",
      inputId: "in_lost",
    });
    await vi.advanceTimersByTimeAsync(10_000);
    await prompt;
    transport.feed(STREAM, upToAsk);
    await transport.drained(STREAM);
    const admitted = published.find((event) => event.type === "input.admitted");
    expect(admitted?.data).toMatchObject({ inputId: expect.stringMatching(/^msg_/) });
  });
});

describe("legacy normaliser, late inputs", () => {
  const userMessage = events.find(
    (event) =>
      event.type === "message.updated" &&
      (event.properties as { info?: { role?: string } }).info?.role === "user",
  );
  const userPart = events.find((event) => {
    const part = (event.properties as { part?: { type?: string } }).part;
    return event.type === "message.part.updated" && part?.type === "text";
  });

  /** The recorded user message, as message `id` with `text`. */
  function message(id: string, text: string) {
    type Props = { info: Record<string, unknown>; part: Record<string, unknown> };
    if (userMessage === undefined || userPart === undefined) throw new Error("fixture changed");
    const messageProps = userMessage.properties as Props;
    const partProps = userPart.properties as Props;
    const part = { ...partProps.part, id: `prt_${id}`, messageID: id, text };
    return [
      { ...userMessage, properties: { ...messageProps, info: { ...messageProps.info, id } } },
      { ...userPart, properties: { ...partProps, part } },
    ].map(parseLegacyEvent);
  }

  it("matches a late input's message by its text, and the next input's by order", () => {
    let state = legacyPromptSent(initialLegacyState(sessionId), "in_1", false);
    state = legacyPromptLate(state, "in_1", "first");
    state = legacyPromptSent(state, "in_2", false);
    const admitted: string[] = [];
    for (const parsed of [...message("msg_1", "first"), ...message("msg_2", "second")]) {
      const result = normalizeLegacyEvent(state, parsed);
      state = result.state;
      for (const event of result.events) {
        if (event.type === "input.admitted") admitted.push(event.data.inputId);
      }
    }
    expect(admitted).toEqual(["in_1", "in_2"]);
    expect(state.late).toEqual([]);
    expect(state.expected).toEqual([]);
  });

  it("keeps a bounded number of late inputs", () => {
    let state = initialLegacyState(sessionId);
    for (let index = 0; index < 50; index++) {
      state = legacyPromptSent(state, `in_${index}`, false);
      state = legacyPromptLate(state, `in_${index}`, `text ${index}`);
    }
    expect(state.late.length).toBeLessThanOrEqual(20);
    expect(state.late.at(-1)?.inputId).toBe("in_49");
  });
});
