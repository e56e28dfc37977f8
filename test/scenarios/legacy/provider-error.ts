/**
 * The provider answers 400. OpenCode 1.18 does not retry an `invalid_request_error`: it sends
 * `session.error` (APIError with the provider's message), goes idle, then writes the
 * assistant message with the same error and goes idle a second time.
 */
import { expect } from "vitest";
import { scenario } from "../scenario.js";
import { clientFor, openLegacyEvents } from "../turns.js";
import { eventsOf, finishedAssistant, idleAfter, promptText, rolesOf } from "./events.js";

const MESSAGE = "scripted bad request";

export const legacyProviderError = scenario({
  name: "legacy-provider-error",
  surface: "legacy",
  description: "the model answers HTTP 400: session.error and an assistant message with the error",
  async run(context) {
    const client = clientFor(context);
    const stream = await openLegacyEvents(client);
    try {
      const session = await client.session.create({ title: "provider error" });
      await promptText(
        client,
        session.id,
        `[[error 400 {"error":{"message":"${MESSAGE}","type":"invalid_request_error"}}]]`,
      );
      await idleAfter(
        stream,
        session.id,
        (item) => finishedAssistant(item, session.id) !== undefined,
      );
      const events = stream.of(session.id);
      await stream.close();
      const messages = await client.session.messages({ sessionID: session.id });
      return { events, messages };
    } finally {
      await stream.close();
    }
  },
  check({ events, messages }) {
    const apiError = {
      name: "APIError",
      data: { message: MESSAGE, statusCode: 400, isRetryable: false },
    };
    const errors = eventsOf(events, "session.error").map((event) => event.properties.error);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject(apiError);
    // The error, then idle; the failed message, then idle again.
    const types = events.map((item) => item.event.type);
    expect(types.slice(types.indexOf("session.error"))).toEqual([
      "session.error",
      "session.status",
      "session.idle",
      "message.updated",
      "session.status",
      "session.idle",
    ]);
    // No retry: the session never reported a `retry` status.
    expect(
      eventsOf(events, "session.status").map((event) => event.properties.status.type),
    ).not.toContain("retry");
    expect(rolesOf(messages)).toEqual(["user", "assistant"]);
    const assistant = messages[1];
    expect(assistant?.info.role === "assistant" && assistant.info.error).toMatchObject(apiError);
    expect(assistant?.parts).toEqual([]);
  },
});
