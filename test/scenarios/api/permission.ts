/**
 * A tool that needs permission (`edit: "ask"`), answered once or rejected. The ask is on the
 * live stream only, so the scenarios read it there (as far as the ask, no further) and follow
 * the rest on the durable stream.
 */
import { expect } from "vitest";
import { type ScenarioContext, scenario } from "../scenario.js";
import { clientFor, DEMO_MODEL_V2, typesOf } from "../turns.js";
import {
  eventsOf,
  followSession,
  nextPermissionAsk,
  openLiveEvents,
  type PermissionAsked,
  queuePrompt,
} from "./follow.js";

const PERMISSION_CONFIG = { permission: { edit: "ask" } };

/*
 * The /api write tool takes `path` (not the legacy `filePath`) and resolves a relative path in
 * the session's location. A relative path also keeps the live tool-input deltas free of the
 * temp directory, which the recorder could not replace once the scripted model splits it.
 */
const WRITE = '[[tool write {"path":"hello.txt","content":"hello"}]]';

/** Live events up to the ask: the turn's own, in order (deltas included). */
const LIVE_UP_TO_ASK = [
  "session.next.prompt.admitted",
  "session.next.prompted",
  "session.next.step.started",
  "session.next.tool.input.started",
  "session.next.tool.input.delta",
  "session.next.tool.input.delta",
  "session.next.tool.input.ended",
  "session.next.tool.called",
  "permission.v2.asked",
];

function checkAsk(ask: PermissionAsked, sessionID: string, callID: string | undefined): void {
  expect(ask.data).toMatchObject({
    sessionID,
    action: "edit",
    resources: ["hello.txt"],
    save: ["*"],
    source: { type: "tool", callID },
  });
}

/**
 * Creates a session, opens the live stream (the ask is only there) and the durable one,
 * prompts the write, waits for its permission ask, and answers it with `reply`.
 */
async function writeAskedAndAnswered(
  context: ScenarioContext,
  title: string,
  reply: "once" | "reject",
) {
  const client = clientFor(context);
  const session = await client.v2.session.create({
    model: DEMO_MODEL_V2,
    location: { directory: context.directory },
    title,
  });
  const live = await openLiveEvents(client);
  const durable = followSession(client, session.id);
  try {
    await queuePrompt(client, session.id, WRITE);
    const ask = await nextPermissionAsk(live, session.id);
    await live.close();
    await client.v2.session.permission.reply({
      sessionID: session.id,
      requestID: ask.data.id,
      reply,
    });
    return { client, session, live, durable, ask };
  } catch (error) {
    await live.close();
    await durable.close();
    throw error;
  }
}

export const apiPermissionOnce = scenario({
  name: "api-permission-once",
  surface: "api",
  description:
    "edit: ask; write asks on the live stream (permission.v2.asked), reply once, the tool succeeds and the turn ends",
  config: PERMISSION_CONFIG,
  async run(context) {
    const { session, live, durable, ask } = await writeAskedAndAnswered(
      context,
      "permission once",
      "once",
    );
    try {
      await durable.settled();
      return { sessionID: session.id, ask, live: live.of(session.id), events: durable.items };
    } finally {
      await live.close();
      await durable.close();
    }
  },
  check({ sessionID, ask, live, events }) {
    expect(typesOf(live)).toEqual(LIVE_UP_TO_ASK);
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
    const [called] = eventsOf(events, "session.next.tool.called");
    const [success] = eventsOf(events, "session.next.tool.success");
    checkAsk(ask, sessionID, called?.data.callID);
    expect(ask.data.source.messageID).toBe(called?.data.assistantMessageID);
    expect(called?.data).toMatchObject({
      tool: "write",
      input: { path: "hello.txt", content: "hello" },
    });
    expect(success?.data.callID).toBe(called?.data.callID);
    expect(success?.data.content).toEqual([
      { type: "text", text: "Created file successfully: hello.txt" },
    ]);
    expect(eventsOf(events, "session.next.step.ended").map((event) => event.data.finish)).toEqual([
      "tool-calls",
      "stop",
    ]);
    expect(eventsOf(events, "session.next.text.ended").map((event) => event.data.text)).toEqual([
      "tool write returned: Created file successfully: hello.txt",
    ]);
  },
});

export const apiPermissionRejected = scenario({
  name: "api-permission-rejected",
  surface: "api",
  description:
    "edit: ask; reject: the tool fails as interrupted and the run stops with no step end; the next prompt runs normally",
  config: PERMISSION_CONFIG,
  async run(context) {
    const { client, session, live, durable, ask } = await writeAskedAndAnswered(
      context,
      "permission rejected",
      "reject",
    );
    try {
      // A rejection stops the run after tool.failed: no step.ended or step.failed follows, so
      // the end is read as tool.failed, and a next prompt shows the session is free again.
      const rejected = await durable.untilType("session.next.tool.failed");
      const after = await queuePrompt(client, session.id, "[[reply after]]");
      await durable.settled();
      return {
        sessionID: session.id,
        ask,
        live: live.of(session.id),
        rejected,
        after,
        events: durable.items,
      };
    } finally {
      await live.close();
      await durable.close();
    }
  },
  check({ sessionID, ask, live, rejected, after, events }) {
    expect(typesOf(live)).toEqual(LIVE_UP_TO_ASK);
    expect(typesOf(rejected)).toEqual([
      "session.next.prompt.admitted",
      "session.next.prompted",
      "session.next.step.started",
      "session.next.tool.input.started",
      "session.next.tool.input.ended",
      "session.next.tool.called",
      "session.next.tool.failed",
    ]);
    // Straight after tool.failed the next prompt: the rejected step never ended.
    expect(typesOf(events).slice(rejected.length)).toEqual([
      "session.next.prompt.admitted",
      "session.next.prompted",
      "session.next.step.started",
      "session.next.text.started",
      "session.next.text.ended",
      "session.next.step.ended",
    ]);
    const [called] = eventsOf(events, "session.next.tool.called");
    const [failed] = eventsOf(events, "session.next.tool.failed");
    checkAsk(ask, sessionID, called?.data.callID);
    expect(failed?.data.callID).toBe(called?.data.callID);
    expect(failed?.data.error).toEqual({ type: "unknown", message: "Tool execution interrupted" });
    expect(eventsOf(events, "session.next.tool.success")).toEqual([]);
    expect(eventsOf(events, "session.next.prompted").at(-1)?.data.messageID).toBe(after.id);
    expect(eventsOf(events, "session.next.step.ended").map((event) => event.data.finish)).toEqual([
      "stop",
    ]);
    expect(eventsOf(events, "session.next.text.ended").map((event) => event.data.text)).toEqual([
      "after",
    ]);
  },
});
