/**
 * A tool that needs permission (`edit: "ask"`), answered once, always or rejected. The ask is
 * on the live stream only, so the scenarios read it there (as far as the ask, no further) and
 * follow the rest on the durable stream; after `always`, a second write is watched on both.
 */
import { expect } from "vitest";
import { type ScenarioContext, scenario } from "../scenario.js";
import { typesOf, writtenFile } from "../turns.js";
import {
  checkAnsweredRun,
  checkRejectedRun,
  checkToolTurn,
  followRejected,
  followToSettled,
  PERMISSION_ASK,
  type PermissionAsked,
  promptAskAndAnswer,
} from "./asks.js";
import { eventsOf } from "./follow.js";

const PERMISSION_CONFIG = { permission: { edit: "ask" } };

/*
 * The /api write tool takes `path` (not the legacy `filePath`) and resolves a relative path in
 * the session's location. A relative path also keeps the live tool-input deltas free of the
 * temp directory, which the recorder could not replace once the scripted model splits it.
 */
function write(path: string, content: string) {
  const input = { path, content };
  const output = `Created file successfully: ${path}`;
  return {
    prompt: `[[tool write ${JSON.stringify(input)}]]`,
    turn: {
      name: "write",
      input,
      content: [{ type: "text", text: output }],
      text: `tool write returned: ${output}`,
    },
  };
}

/** The write that asks. */
const WRITE = write("hello.txt", "hello");
/** The write after an `always`: another file, to show the saved rule (`*`) is not tied to one. */
const WRITE_AGAIN = write("again.txt", "again");

function checkAsk(ask: PermissionAsked, sessionID: string, callID: string | undefined): void {
  expect(ask.data).toMatchObject({
    sessionID,
    action: "edit",
    resources: ["hello.txt"],
    save: ["*"],
    source: { type: "tool", callID },
  });
}

/** Prompts the write, waits for its permission ask on the live stream, and answers `reply`. */
function writeAskedAndAnswered(
  context: ScenarioContext,
  title: string,
  reply: "once" | "always" | "reject",
) {
  return promptAskAndAnswer(
    context,
    title,
    WRITE.prompt,
    PERMISSION_ASK,
    (client, sessionID, requestID) =>
      client.v2.session.permission.reply({ sessionID, requestID, reply }),
  );
}

export const apiPermissionOnce = scenario({
  name: "api-permission-once",
  surface: "api",
  description:
    "edit: ask; write asks on the live stream (permission.v2.asked), reply once, the tool succeeds and the turn ends",
  config: PERMISSION_CONFIG,
  async run(context) {
    return followToSettled(await writeAskedAndAnswered(context, "permission once", "once"));
  },
  check(result) {
    const called = checkAnsweredRun(result, "permission.v2.asked", WRITE.turn);
    checkAsk(result.ask, result.sessionID, called?.data.callID);
    expect(result.ask.data.source.messageID).toBe(called?.data.assistantMessageID);
  },
});

export const apiPermissionAlways = scenario({
  name: "api-permission-always",
  surface: "api",
  description:
    "edit: ask; write asks, reply always: the tool succeeds; a second write, prompted once the turn is over, is not asked",
  config: PERMISSION_CONFIG,
  async run(context) {
    const answered = await writeAskedAndAnswered(context, "permission always", "always");
    const result = await followToSettled(answered, WRITE_AGAIN.prompt);
    // Only a live run has the file system the server wrote to.
    const written = [writtenFile(context, "hello.txt"), writtenFile(context, "again.txt")];
    return { ...result, written };
  },
  check(result) {
    const called = checkAnsweredRun(result, "permission.v2.asked", WRITE.turn);
    checkAsk(result.ask, result.sessionID, called?.data.callID);
    const { next } = result;
    if (next === undefined) throw new Error("the second write did not run");
    checkToolTurn(next.events, WRITE_AGAIN.turn);
    expect(eventsOf(next.events, "session.next.prompted")[0]?.data.messageID).toBe(
      next.admitted.id,
    );
    // Not asked: the live stream carries the durable events and their deltas, and no ask.
    expect(typesOf(next.live).filter((type) => !type.endsWith(".delta"))).toEqual(
      typesOf(next.events),
    );
    if (result.written.every((file) => file !== undefined)) {
      expect(result.written).toEqual([
        { exists: true, content: "hello" },
        { exists: true, content: "again" },
      ]);
    }
  },
});

export const apiPermissionRejected = scenario({
  name: "api-permission-rejected",
  surface: "api",
  description:
    "edit: ask; reject: the tool fails as interrupted and the run stops with no step end; the next prompt runs normally",
  config: PERMISSION_CONFIG,
  async run(context) {
    return followRejected(await writeAskedAndAnswered(context, "permission rejected", "reject"));
  },
  check(result) {
    const called = checkRejectedRun(result, "permission.v2.asked");
    checkAsk(result.ask, result.sessionID, called?.data.callID);
  },
});
