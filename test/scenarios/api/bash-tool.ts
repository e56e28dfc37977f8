/** A turn that runs one tool and answers with its result, on the durable stream. */
import { expect } from "vitest";
import { scenario } from "../scenario.js";
import { typesOf } from "../turns.js";
import { eventsOf, openApiSession, queuePrompt } from "./follow.js";

export const apiBashTool = scenario({
  name: "api-bash-tool",
  surface: "api",
  description:
    "bash tool call: tool.input.*, tool.called, tool.success, a tool-calls step, then the text step",
  async run(context) {
    const { client, session, durable } = await openApiSession(context, "bash tool");
    try {
      // The /api bash tool takes `command`, `workdir` and `timeout` (no `description`, unlike
      // the legacy one): what OpenCode 1.18.33 offers the model.
      await queuePrompt(client, session.id, '[[tool bash {"command":"echo hi"}]]');
      await durable.settled();
      return { events: durable.items };
    } finally {
      await durable.close();
    }
  },
  check({ events }) {
    expect(typesOf(events)).toEqual([
      "session.next.prompt.admitted",
      "session.next.prompted",
      "session.next.step.started",
      "session.next.tool.input.started",
      "session.next.tool.input.ended",
      "session.next.tool.called",
      "session.next.tool.success",
      "session.next.step.ended",
      "session.next.step.started",
      "session.next.text.started",
      "session.next.text.ended",
      "session.next.step.ended",
    ]);
    const [inputStarted] = eventsOf(events, "session.next.tool.input.started");
    const [inputEnded] = eventsOf(events, "session.next.tool.input.ended");
    const [called] = eventsOf(events, "session.next.tool.called");
    const [success] = eventsOf(events, "session.next.tool.success");
    expect(inputStarted?.data.name).toBe("bash");
    expect(JSON.parse(inputEnded?.data.text ?? "")).toEqual({ command: "echo hi" });
    expect(called?.data).toMatchObject({ tool: "bash", input: { command: "echo hi" } });
    const callID = called?.data.callID;
    expect(inputStarted?.data.callID).toBe(callID);
    expect(success?.data.callID).toBe(callID);
    expect(success?.data.content).toEqual([
      { type: "text", text: "hi\n" },
      { type: "text", text: "Command exited with code 0." },
    ]);

    const steps = eventsOf(events, "session.next.step.started");
    const ended = eventsOf(events, "session.next.step.ended");
    expect(ended.map((event) => event.data.finish)).toEqual(["tool-calls", "stop"]);
    // Each step is its own assistant message; the tool belongs to the first.
    expect(steps.map((event) => event.data.assistantMessageID)).toEqual(
      ended.map((event) => event.data.assistantMessageID),
    );
    expect(called?.data.assistantMessageID).toBe(steps[0]?.data.assistantMessageID);
    expect(eventsOf(events, "session.next.text.ended").map((event) => event.data.text)).toEqual([
      "tool bash returned: hi\n\nCommand exited with code 0.",
    ]);
  },
});
