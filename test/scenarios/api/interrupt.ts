/** Interrupting a session while a tool runs, then prompting it again. */
import { expect } from "vitest";
import { scenario } from "../scenario.js";
import { typesOf } from "../turns.js";
import { eventsOf, isType, openApiSession, queuePrompt } from "./follow.js";

export const apiInterruptMidTool = scenario({
  name: "api-interrupt-mid-tool",
  surface: "api",
  description:
    "interrupt while bash runs: the tool fails, the step ends with tool-calls, and the session takes the next prompt",
  async run(context) {
    const { client, session, durable } = await openApiSession(context, "interrupt mid tool");
    try {
      await queuePrompt(client, session.id, '[[tool bash {"command":"sleep 30"}]]');
      await durable.untilType("session.next.tool.called");
      await client.v2.session.interrupt({ sessionID: session.id });
      const interrupted = await durable.until(
        (item) =>
          isType(item, "session.next.step.ended") || isType(item, "session.next.step.failed"),
      );
      const after = await queuePrompt(client, session.id, "[[reply after]]");
      await durable.settled();
      return { interrupted, after, events: durable.items };
    } finally {
      await durable.close();
    }
  },
  check({ interrupted, after, events }) {
    // What the interrupt caused, read after tool.called.
    expect(typesOf(interrupted)).toEqual(["session.next.tool.failed", "session.next.step.ended"]);
    expect(typesOf(events)).toEqual([
      "session.next.prompt.admitted",
      "session.next.prompted",
      "session.next.step.started",
      "session.next.tool.input.started",
      "session.next.tool.input.ended",
      "session.next.tool.called",
      "session.next.tool.failed",
      "session.next.step.ended",
      "session.next.prompt.admitted",
      "session.next.prompted",
      "session.next.step.started",
      "session.next.text.started",
      "session.next.text.ended",
      "session.next.step.ended",
    ]);
    const [called] = eventsOf(events, "session.next.tool.called");
    const [failed] = eventsOf(events, "session.next.tool.failed");
    expect(called?.data).toMatchObject({ tool: "bash", input: { command: "sleep 30" } });
    expect(failed?.data.callID).toBe(called?.data.callID);
    expect(failed?.data.error).toEqual({ type: "unknown", message: "Tool execution interrupted" });
    expect(eventsOf(events, "session.next.tool.success")).toEqual([]);
    // The interrupted step still ends normally, as a step that asked for tool results.
    expect(eventsOf(events, "session.next.step.ended").map((event) => event.data.finish)).toEqual([
      "tool-calls",
      "stop",
    ]);
    expect(eventsOf(events, "session.next.prompted").at(-1)?.data.messageID).toBe(after.id);
    expect(eventsOf(events, "session.next.text.ended").map((event) => event.data.text)).toEqual([
      "after",
    ]);
  },
});
