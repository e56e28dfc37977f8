/**
 * A prompt with an image attached as a data URL (`prompt.files`): admitted and delivered with
 * the file, and answered like any text turn.
 */
import { expect } from "vitest";
import { IMAGE_PROMPT, PIXEL_NAME, PIXEL_URL } from "../image.js";
import { scenario } from "../scenario.js";
import { typesOf } from "../turns.js";
import { eventsOf, openApiSession, queuePrompt, TEXT_TURN } from "./follow.js";

const FILES = [{ uri: PIXEL_URL, name: PIXEL_NAME }];

export const apiImageAttachment = scenario({
  name: "api-image-attachment",
  surface: "api",
  description: "/api prompt (queue) with a PNG in prompt.files (a data URL); the turn replies",
  async run(context) {
    const { client, session, durable } = await openApiSession(context, "image attachment");
    try {
      const admitted = await queuePrompt(client, session.id, IMAGE_PROMPT, FILES);
      await durable.settled();
      return { admitted, events: durable.items };
    } finally {
      await durable.close();
    }
  },
  check({ admitted, events }) {
    // The server adds each file's media type (`mime`) to the prompt it echoes and publishes.
    const prompt = {
      text: IMAGE_PROMPT,
      files: FILES.map((file) => ({ ...file, mime: "image/png" })),
    };
    expect(admitted.delivery).toBe("queue");
    expect(admitted.prompt).toEqual(prompt);
    expect(typesOf(events)).toEqual(TEXT_TURN);
    for (const type of ["session.next.prompt.admitted", "session.next.prompted"] as const) {
      expect(eventsOf(events, type).map((event) => event.data.prompt)).toEqual([prompt]);
    }
    expect(eventsOf(events, "session.next.step.ended").map((event) => event.data.finish)).toEqual([
      "stop",
    ]);
    expect(eventsOf(events, "session.next.text.ended").map((event) => event.data.text)).toEqual([
      "seen",
    ]);
  },
});
