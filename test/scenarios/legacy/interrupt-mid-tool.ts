/**
 * `session.abort` while a bash tool runs, then a normal second turn.
 *
 * OpenCode 1.18 ends the turn at once (`session.error` MessageAbortedError, then idle). Its
 * processor then gives each running tool 250 ms to settle and fails the ones still running
 * with "Tool execution aborted" (`metadata.interrupted: true`); bash usually beats that: it
 * kills its command and completes with the note "User aborted the command". Either way the
 * assistant message is then written with the error, and a second idle follows.
 */
import { expect } from "vitest";
import { scenario } from "../scenario.js";
import { clientFor, openLegacyEvents } from "../turns.js";
import {
  assistantTexts,
  eventsOf,
  finishedAssistant,
  idleAfter,
  type LegacyItem,
  promptText,
  rolesOf,
  toolPartIn,
  toolSnapshots,
  toolStatuses,
} from "./events.js";

/**
 * Bash reports `metadata.output` once its command runs. Aborting before that left the order of
 * that update and the abort's events to chance.
 */
function commandStarted(item: LegacyItem): boolean {
  const state = toolPartIn(item, "bash")?.state;
  return state?.status === "running" && state.metadata?.output !== undefined;
}

/**
 * Streamed slowly on purpose: right after an abort, an instant answer's first
 * `message.updated` was sometimes serialised only once the answer was done.
 */
const NEXT = "[[slow 2 300]]";

export const legacyInterruptMidTool = scenario({
  name: "legacy-interrupt-mid-tool",
  surface: "legacy",
  description: "session.abort while a bash tool runs; the next prompt runs normally",
  async run(context) {
    const client = clientFor(context);
    const stream = await openLegacyEvents(client);
    try {
      const session = await client.session.create({ title: "interrupt mid tool" });
      await promptText(
        client,
        session.id,
        '[[tool bash {"command":"sleep 30","description":"wait"}]]',
      );
      await stream.until(commandStarted);
      const aborted = await client.session.abort({ sessionID: session.id });
      await idleAfter(
        stream,
        session.id,
        (item) => finishedAssistant(item, session.id) !== undefined,
      );
      const firstTurn = stream.of(session.id);
      await promptText(client, session.id, NEXT);
      await stream.idle(session.id);
      const secondTurn = stream.of(session.id).slice(firstTurn.length);
      await stream.close();
      const messages = await client.session.messages({ sessionID: session.id });
      return { aborted, firstTurn, secondTurn, messages };
    } finally {
      await stream.close();
    }
  },
  check({ aborted, firstTurn, secondTurn, messages }) {
    expect(aborted).toBe(true);
    const abortedError = { name: "MessageAbortedError", data: { message: "Aborted" } };
    expect(eventsOf(firstTurn, "session.error").map((event) => event.properties.error)).toEqual([
      abortedError,
    ]);
    // The first idle comes before the tool and the message are settled, the second after.
    const types = firstTurn.map((item) => item.event.type);
    expect(types.filter((type) => type === "session.idle")).toHaveLength(2);
    expect(types.indexOf("session.idle")).toBe(types.indexOf("session.error") + 2);
    const tool = toolSnapshots(firstTurn, "bash").at(-1)?.state;
    if (tool?.status === "completed") {
      // Bash stopped its command within the grace period.
      expect(toolStatuses(firstTurn, "bash")).toEqual(["pending", "running", "completed"]);
      expect(tool.metadata).toMatchObject({ exit: null });
      expect(tool.output).toContain("User aborted the command");
    } else {
      // It did not: the processor failed it.
      expect(toolStatuses(firstTurn, "bash")).toEqual(["pending", "running", "error"]);
      expect(tool).toMatchObject({
        status: "error",
        error: "Tool execution aborted",
        metadata: { interrupted: true },
      });
    }
    // The turn's error lands on the assistant message, which has no step-finish.
    const interrupted = messages[1];
    expect(interrupted?.info.role === "assistant" && interrupted.info.error).toEqual(abortedError);
    expect(interrupted?.info.role === "assistant" && interrupted.info.finish).toBeUndefined();
    expect(interrupted?.parts.map((part) => part.type)).toEqual(["step-start", "tool"]);
    // The next prompt is a normal turn.
    expect(eventsOf(secondTurn, "session.error")).toEqual([]);
    expect(eventsOf(secondTurn, "session.idle")).toHaveLength(1);
    expect(rolesOf(messages)).toEqual(["user", "assistant", "user", "assistant"]);
    const after = messages[3]?.info;
    expect(after?.role === "assistant" && after.finish).toBe("stop");
    expect(assistantTexts(messages)).toEqual(["tok1 tok2"]);
  },
});
