/** A second prompt while a turn streams: steered into it, or queued behind it. */
import { expect } from "vitest";
import type { ApiEvent } from "../../../src/opencode-protocol/api/events.js";
import type { Parsed } from "../../../src/opencode-protocol/common.js";
import { scenario } from "../scenario.js";
import { typesOf } from "../turns.js";
import { eventsOf, isType, openApiSession, positionOf, queuePrompt } from "./follow.js";

/** Where the admission or the delivery of prompt `messageID` sits in `events`. */
const at = (
  events: readonly Parsed<ApiEvent>[],
  type: "session.next.prompt.admitted" | "session.next.prompted",
  messageID: string,
) => positionOf(events, (item) => isType(item, type) && item.event.data.messageID === messageID);

export const apiSteerMidTurn = scenario({
  name: "api-steer-mid-turn",
  surface: "api",
  description:
    "steer sent while a text step streams: admitted at once, delivered after that step ends, answered by the next step",
  async run(context) {
    const { client, session, durable } = await openApiSession(context, "steer mid turn");
    try {
      const first = await queuePrompt(client, session.id, "[[slow 40 50]]");
      // The durable stream has no deltas, but text.started comes as the first token streams,
      // about two seconds before this text ends.
      await durable.untilType("session.next.text.started");
      const steer = await client.v2.session.prompt({
        sessionID: session.id,
        prompt: { text: "[[reply steered]]" },
        delivery: "steer",
      });
      await durable.settled();
      return { first, steer, events: durable.items };
    } finally {
      await durable.close();
    }
  },
  check({ first, steer, events }) {
    expect(first.delivery).toBe("queue");
    expect(steer.delivery).toBe("steer");
    expect(typesOf(events)).toEqual([
      "session.next.prompt.admitted",
      "session.next.prompted",
      "session.next.step.started",
      "session.next.text.started",
      "session.next.prompt.admitted", // the steer, while the text streams
      "session.next.text.ended",
      "session.next.step.ended",
      "session.next.prompted", // the steer, at the step boundary
      "session.next.step.started",
      "session.next.text.started",
      "session.next.text.ended",
      "session.next.step.ended",
    ]);
    const admitted = eventsOf(events, "session.next.prompt.admitted");
    const prompted = eventsOf(events, "session.next.prompted");
    expect(admitted.map((event) => event.data.delivery)).toEqual(["queue", "steer"]);
    expect(prompted.map((event) => event.data.delivery)).toEqual(["queue", "steer"]);
    expect(admitted[1]?.data.messageID).toBe(steer.id);
    expect(admitted[1]?.durable?.seq).toBe(steer.admittedSeq);

    const stepEnds = events.flatMap((item, index) =>
      isType(item, "session.next.step.ended") ? [index] : [],
    );
    expect(stepEnds).toHaveLength(2);
    const [firstEnd = -1, lastEnd = -1] = stepEnds;
    // Admitted while the first step streamed, delivered right after it ended and before the
    // step that answers it: one run of steps, no idle gap between them.
    expect(at(events, "session.next.prompt.admitted", steer.id)).toBeLessThan(firstEnd);
    expect(at(events, "session.next.prompted", steer.id)).toBe(firstEnd + 1);
    expect(at(events, "session.next.prompted", steer.id)).toBeLessThan(lastEnd);
    expect(eventsOf(events, "session.next.step.ended").map((event) => event.data.finish)).toEqual([
      "stop",
      "stop",
    ]);
    const texts = eventsOf(events, "session.next.text.ended").map((event) => event.data.text);
    expect(texts).toEqual([
      Array.from({ length: 40 }, (_, index) => `tok${index + 1}`).join(" "),
      "steered",
    ]);
  },
});

export const apiQueueBehindTurn = scenario({
  name: "api-queue-behind-turn",
  surface: "api",
  description:
    "a queued prompt sent while a text step streams: admitted at once, delivered only after the turn ends",
  async run(context) {
    const { client, session, durable } = await openApiSession(context, "queue behind turn");
    try {
      const first = await queuePrompt(client, session.id, "[[slow 20 30]]");
      // Sent once the first turn streams. Sent straight after the first admission instead, it
      // races the first delivery (prompted): either may take the next seq.
      await durable.untilType("session.next.text.started");
      const second = await queuePrompt(client, session.id, "[[reply second]]");
      await durable.settled();
      return { first, second, events: durable.items };
    } finally {
      await durable.close();
    }
  },
  check({ first, second, events }) {
    expect([first.delivery, second.delivery]).toEqual(["queue", "queue"]);
    expect(typesOf(events)).toEqual([
      "session.next.prompt.admitted",
      "session.next.prompted",
      "session.next.step.started",
      "session.next.text.started",
      "session.next.prompt.admitted", // the second, while the text streams
      "session.next.text.ended",
      "session.next.step.ended",
      "session.next.prompted", // the second, once the first turn is over
      "session.next.step.started",
      "session.next.text.started",
      "session.next.text.ended",
      "session.next.step.ended",
    ]);
    expect(eventsOf(events, "session.next.prompted").map((event) => event.data.messageID)).toEqual([
      first.id,
      second.id,
    ]);
    const firstTurnEnd = positionOf(events, (item) => isType(item, "session.next.step.ended"));
    // Admitted while the first turn streamed, delivered only once it was over.
    expect(at(events, "session.next.prompt.admitted", second.id)).toBeLessThan(firstTurnEnd);
    expect(at(events, "session.next.prompted", second.id)).toBeGreaterThan(firstTurnEnd);
    expect(eventsOf(events, "session.next.step.ended").map((event) => event.data.finish)).toEqual([
      "stop",
      "stop",
    ]);
    expect(eventsOf(events, "session.next.text.ended").map((event) => event.data.text)).toEqual([
      Array.from({ length: 20 }, (_, index) => `tok${index + 1}`).join(" "),
      "second",
    ]);
  },
});

export const apiSteerMidTool = scenario({
  name: "api-steer-mid-tool",
  surface: "api",
  description:
    "steer sent while a tool runs: delivered after the tool-calls step, so the next step of the same run answers it",
  async run(context) {
    const { client, session, durable } = await openApiSession(context, "steer mid tool");
    try {
      await queuePrompt(client, session.id, '[[tool bash {"command":"sleep 1"}]]');
      await durable.untilType("session.next.tool.called");
      const steer = await client.v2.session.prompt({
        sessionID: session.id,
        prompt: { text: "[[reply steered]]" },
        delivery: "steer",
      });
      await durable.settled();
      return { steer, events: durable.items };
    } finally {
      await durable.close();
    }
  },
  check({ steer, events }) {
    expect(typesOf(events)).toEqual([
      "session.next.prompt.admitted",
      "session.next.prompted",
      "session.next.step.started",
      "session.next.tool.input.started",
      "session.next.tool.input.ended",
      "session.next.tool.called",
      "session.next.prompt.admitted", // the steer, while bash runs
      "session.next.tool.success",
      "session.next.step.ended", // tool-calls
      "session.next.prompted", // the steer, between the two steps of the run
      "session.next.step.started",
      "session.next.text.started",
      "session.next.text.ended",
      "session.next.step.ended",
    ]);
    expect(eventsOf(events, "session.next.prompted").map((event) => event.data.delivery)).toEqual([
      "queue",
      "steer",
    ]);
    expect(eventsOf(events, "session.next.prompted").at(-1)?.data.messageID).toBe(steer.id);
    expect(eventsOf(events, "session.next.step.ended").map((event) => event.data.finish)).toEqual([
      "tool-calls",
      "stop",
    ]);
    // The step after the tool answers the steer (the scripted model replies to the last user
    // message), not the tool result: a queued prompt would have waited for that answer.
    expect(eventsOf(events, "session.next.text.ended").map((event) => event.data.text)).toEqual([
      "steered",
    ]);
  },
});
