/**
 * The `task` tool starts a subagent. Its arguments are the ones OpenCode 1.18 offers the model:
 * `description`, `prompt`, `subagent_type` (required), `task_id`, `command`. The child session
 * (parentID set, title `<description> (@<agent> subagent)`) runs on the same `/event` stream
 * while the parent's task part stays `running`; its final text comes back as the tool output.
 */
import { expect } from "vitest";
import { scenario } from "../scenario.js";
import { clientFor, isLegacy, legacySessionOf, openLegacyEvents } from "../turns.js";
import {
  assistantTexts,
  eventsOf,
  promptText,
  streamedTexts,
  toolPartIn,
  toolSnapshots,
  toolStatuses,
} from "./events.js";

/**
 * Both answers are streamed slowly on purpose. With instant ones, an answer's first
 * `message.updated` was sometimes serialised only once the answer was done (showing it
 * finished), and the parent went idle before or after the child's trailing summary events.
 */
const TASK = {
  description: "child work",
  prompt: "[[slow 3 300]]",
  subagent_type: "general",
};
const CHILD_TEXT = "tok1 tok2 tok3";
const PROMPT = `[[tool task ${JSON.stringify(TASK)}]] [[slow 2 300]]`;

export const legacySubagent = scenario({
  name: "legacy-subagent",
  surface: "legacy",
  description: "a task tool call: a child session runs a subagent and returns its answer",
  async run(context) {
    const client = clientFor(context);
    const stream = await openLegacyEvents(client);
    try {
      const session = await client.session.create({ title: "subagent" });
      await promptText(client, session.id, PROMPT);
      await stream.idle(session.id);
      const events = [...stream.items];
      await stream.close();
      const children = await client.session.children({ sessionID: session.id });
      const messages = await client.session.messages({ sessionID: session.id });
      // One call at a time: the recording must keep the same order every run.
      const childMessages = [];
      for (const child of children) {
        childMessages.push(await client.session.messages({ sessionID: child.id }));
      }
      return { sessionID: session.id, events, children, messages, childMessages };
    } finally {
      await stream.close();
    }
  },
  check({ sessionID, events, children, messages, childMessages }) {
    expect(children).toHaveLength(1);
    const child = children[0];
    expect(child).toMatchObject({ parentID: sessionID, title: "child work (@general subagent)" });
    const childID = child?.id ?? "";
    // The child ran on the same stream, and went idle before the parent's task completed.
    const childEvents = events.filter((item) => legacySessionOf(item) === childID);
    expect(eventsOf(childEvents, "session.created")[0]?.properties.info.parentID).toBe(sessionID);
    expect(streamedTexts(childEvents, childID)).toEqual([CHILD_TEXT]);
    expect(eventsOf(childEvents, "session.idle")).toHaveLength(1);
    const childIdleAt = events.findIndex((item) => isLegacy(item, "session.idle", childID));
    const taskDoneAt = events.findIndex(
      (item) => toolPartIn(item, "task")?.state.status === "completed",
    );
    expect(childIdleAt).toBeGreaterThan(-1);
    expect(childIdleAt).toBeLessThan(taskDoneAt);
    const parentEvents = events.filter((item) => legacySessionOf(item) === sessionID);
    // The parent's task part names the child while it runs, and returns the child's answer.
    expect(toolStatuses(parentEvents, "task")).toEqual(["pending", "running", "completed"]);
    const running = toolSnapshots(parentEvents, "task").find(
      (part) => part.state.status === "running",
    );
    expect(running?.state).toMatchObject({
      input: TASK,
      title: "child work",
      metadata: { sessionId: childID, parentSessionId: sessionID },
    });
    const done = toolSnapshots(parentEvents, "task").at(-1)?.state;
    expect(done?.status === "completed" && done.output).toBe(
      `<task id="${childID}" state="completed">\n<task_result>\n${CHILD_TEXT}\n</task_result>\n</task>`,
    );
    expect(assistantTexts(messages)).toEqual(["tok1 tok2"]);
    expect(childMessages.map((list) => assistantTexts(list))).toEqual([[CHILD_TEXT]]);
  },
});
