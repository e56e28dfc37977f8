/** The provider answers a step with an HTTP error that is not retried. */
import { expect } from "vitest";
import { scenario } from "../scenario.js";
import { typesOf } from "../turns.js";
import { eventsOf, openApiSession, queuePrompt } from "./follow.js";

export const apiProviderError = scenario({
  name: "api-provider-error",
  surface: "api",
  description:
    "provider 400 (invalid_request_error): step.failed with the provider's message, no retry; the session takes the next prompt",
  async run(context) {
    const { client, session, durable } = await openApiSession(context, "provider error");
    try {
      await client.v2.session.prompt({
        sessionID: session.id,
        prompt: {
          text: '[[error 400 {"error":{"message":"scripted bad request","type":"invalid_request_error"}}]]',
        },
        delivery: "queue",
      });
      const failed = await durable.settled();
      await queuePrompt(client, session.id, "[[reply after]]");
      await durable.settled();
      return { failed, events: durable.items };
    } finally {
      await durable.close();
    }
  },
  check({ failed, events }) {
    expect(typesOf(failed)).toEqual([
      "session.next.prompt.admitted",
      "session.next.prompted",
      "session.next.step.started",
      "session.next.step.failed",
    ]);
    const [stepFailed] = eventsOf(events, "session.next.step.failed");
    const [started] = eventsOf(events, "session.next.step.started");
    expect(stepFailed?.data.assistantMessageID).toBe(started?.data.assistantMessageID);
    // OpenCode quotes the provider's body, with anything that looks like the provider's key
    // redacted: the demo provider's key is "scripted".
    expect(stepFailed?.data.error).toEqual({
      type: "unknown",
      message:
        'Provider request failed with HTTP 400: {"error":{"message":"<redacted> bad request","type":"invalid_request_error"}}',
    });
    // A 4xx that is not a server error is not retried: no session.next.retried, one step.
    expect(eventsOf(events, "session.next.retried")).toEqual([]);
    expect(typesOf(events).slice(failed.length)).toEqual([
      "session.next.prompt.admitted",
      "session.next.prompted",
      "session.next.step.started",
      "session.next.text.started",
      "session.next.text.ended",
      "session.next.step.ended",
    ]);
    expect(eventsOf(events, "session.next.text.ended").map((event) => event.data.text)).toEqual([
      "after",
    ]);
  },
});
