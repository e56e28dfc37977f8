/**
 * A tool that needs permission (`edit: "ask"`), answered once or rejected. The ask is on the
 * live stream only, so the scenarios read it there (as far as the ask, no further) and follow
 * the rest on the durable stream.
 */
import { expect } from "vitest";
import { type ScenarioContext, scenario } from "../scenario.js";
import {
  checkAnsweredRun,
  checkRejectedRun,
  followRejected,
  followToSettled,
  PERMISSION_ASK,
  type PermissionAsked,
  promptAskAndAnswer,
} from "./asks.js";

const PERMISSION_CONFIG = { permission: { edit: "ask" } };

/*
 * The /api write tool takes `path` (not the legacy `filePath`) and resolves a relative path in
 * the session's location. A relative path also keeps the live tool-input deltas free of the
 * temp directory, which the recorder could not replace once the scripted model splits it.
 */
const WRITE = '[[tool write {"path":"hello.txt","content":"hello"}]]';

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
function writeAskedAndAnswered(context: ScenarioContext, title: string, reply: "once" | "reject") {
  return promptAskAndAnswer(context, title, WRITE, PERMISSION_ASK, (client, sessionID, requestID) =>
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
    const called = checkAnsweredRun(result, "permission.v2.asked", {
      name: "write",
      input: { path: "hello.txt", content: "hello" },
      content: [{ type: "text", text: "Created file successfully: hello.txt" }],
      text: "tool write returned: Created file successfully: hello.txt",
    });
    checkAsk(result.ask, result.sessionID, called?.data.callID);
    expect(result.ask.data.source.messageID).toBe(called?.data.assistantMessageID);
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
