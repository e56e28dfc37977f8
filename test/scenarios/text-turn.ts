/** A plain text turn, streamed, on each surface. */
import { expect } from "vitest";
import { promptToIdle } from "./legacy/events.js";
import { scenario } from "./scenario.js";
import { clientFor, DEMO_MODEL_V2, openDurableEvents, typesOf } from "./turns.js";

export const legacyTextTurn = scenario({
  name: "legacy-text-turn",
  surface: "legacy",
  description: "prompt_async with a streamed reply; /event deltas and the final text part",
  async run(context) {
    return promptToIdle(context, { title: "text turn" }, [{ type: "text", text: "[[slow 4 10]]" }]);
  },
  check({ events, messages }) {
    const known = events.flatMap((item) => (item.known ? [item.event] : []));
    const deltas = known.flatMap((event) =>
      event.type === "message.part.delta" ? [event.properties.delta] : [],
    );
    expect(deltas.join("")).toBe("tok1 tok2 tok3 tok4");
    expect(typesOf(events).at(-1)).toBe("session.idle");
    expect(messages.map((message) => message.info.role)).toEqual(["user", "assistant"]);
  },
});

export const apiTextTurn = scenario({
  name: "api-text-turn",
  surface: "api",
  description: "/api prompt (queue) with a streamed reply; durable stream whole values",
  async run(context) {
    const client = clientFor(context);
    const session = await client.v2.session.create({
      model: DEMO_MODEL_V2,
      location: { directory: context.directory },
      title: "text turn",
    });
    const durable = openDurableEvents(client, session.id);
    try {
      const admitted = await client.v2.session.prompt({
        sessionID: session.id,
        prompt: { text: "[[slow 4 10]]" },
        delivery: "queue",
      });
      await durable.turnEnded();
      return { admitted, events: durable.items };
    } finally {
      await durable.close();
    }
  },
  check({ admitted, events }) {
    expect(admitted.delivery).toBe("queue");
    const ended = events.flatMap((item) =>
      item.known && item.event.type === "session.next.text.ended" ? [item.event.data.text] : [],
    );
    expect(ended).toEqual(["tok1 tok2 tok3 tok4"]);
    expect(typesOf(events).slice(0, 3)).toEqual([
      "session.next.prompt.admitted",
      "session.next.prompted",
      "session.next.step.started",
    ]);
  },
});
