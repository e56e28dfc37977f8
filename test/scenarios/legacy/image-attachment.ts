/**
 * A prompt with an image attached as a data URL (a `file` part beside the text): the turn
 * replies as usual, and the user message keeps the image as a file part.
 */
import { expect } from "vitest";
import { IMAGE_PROMPT, PIXEL_NAME, PIXEL_URL } from "../image.js";
import { scenario } from "../scenario.js";
import { typesOf } from "../turns.js";
import { assistantTexts, eventsOf, promptToIdle, rolesOf } from "./events.js";

export const legacyImageAttachment = scenario({
  name: "legacy-image-attachment",
  surface: "legacy",
  description: "prompt_async with a text part and a PNG file part (a data URL); the reply streams",
  async run(context) {
    return promptToIdle(context, { title: "image attachment" }, [
      { type: "text", text: IMAGE_PROMPT },
      { type: "file", mime: "image/png", url: PIXEL_URL, filename: PIXEL_NAME },
    ]);
  },
  check({ events, messages }) {
    expect(typesOf(events).at(-1)).toBe("session.idle");
    expect(eventsOf(events, "session.error")).toEqual([]);
    expect(rolesOf(messages)).toEqual(["user", "assistant"]);
    expect(messages[0]?.parts.map((part) => part.type)).toEqual(["text", "file"]);
    expect(messages[0]?.parts[1]).toMatchObject({
      type: "file",
      mime: "image/png",
      url: PIXEL_URL,
      filename: PIXEL_NAME,
    });
    expect(assistantTexts(messages)).toEqual(["seen"]);
  },
});
