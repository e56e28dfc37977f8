/** A turn that runs the `bash` tool, then answers with its result. */
import { expect } from "vitest";
import { scenario } from "../scenario.js";
import { clientFor, openLegacyEvents, typesOf } from "../turns.js";
import {
  assistantTexts,
  promptText,
  rolesOf,
  streamedTexts,
  toolSnapshots,
  toolStatuses,
} from "./events.js";

export const legacyBashTool = scenario({
  name: "legacy-bash-tool",
  surface: "legacy",
  description: "a bash tool call: the tool part goes pending, running, completed; then the answer",
  async run(context) {
    const client = clientFor(context);
    const stream = await openLegacyEvents(client);
    try {
      const session = await client.session.create({ title: "bash tool" });
      await promptText(
        client,
        session.id,
        '[[tool bash {"command":"echo hi","description":"say hi"}]]',
      );
      await stream.idle(session.id);
      const events = stream.of(session.id);
      await stream.close();
      const messages = await client.session.messages({ sessionID: session.id });
      return { sessionID: session.id, events, messages };
    } finally {
      await stream.close();
    }
  },
  check({ sessionID, events, messages }) {
    expect(toolStatuses(events, "bash")).toEqual(["pending", "running", "completed"]);
    const last = toolSnapshots(events, "bash").at(-1);
    expect(last?.state).toMatchObject({
      status: "completed",
      input: { command: "echo hi", description: "say hi" },
      output: "hi\n",
      metadata: { exit: 0 },
    });
    expect(streamedTexts(events, sessionID)).toEqual(["tool bash returned: hi\n"]);
    expect(typesOf(events).at(-1)).toBe("session.idle");
    // One user message; the tool step and the answer are two assistant messages.
    expect(rolesOf(messages)).toEqual(["user", "assistant", "assistant"]);
    expect(
      messages.map((message) => message.info.role === "assistant" && message.info.finish),
    ).toEqual([false, "tool-calls", "stop"]);
    expect(assistantTexts(messages)).toEqual(["tool bash returned: hi\n"]);
  },
});
