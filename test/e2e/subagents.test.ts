/**
 * End to end: a subagent (the `task` tool) on the serve-legacy backend — the /api runtime of
 * 1.18.33 has no task tool — against the real binary and the scripted model: the child
 * session's own events, linked from the parent's turn, and a child's ask answered through
 * the parent session.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
import { demoModelServer } from "../../src/testing/demo-model-server.js";
import { trackProcess } from "../support/process-tracker.js";
import { collectTurn } from "../support/turn-events.js";

let bridge: Bridge;
let directory: string;
beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "ocb-subagents-"));
  bridge = await Bridge.start({
    directory,
    modelServer: demoModelServer,
    backend: "serve-legacy",
    permissions: "ask",
  });
  trackProcess(bridge.server.pid, "opencode serve (subagents)");
});
afterAll(async () => {
  await bridge?.close();
  rmSync(directory, { recursive: true, force: true });
});

const task = (prompt: string) =>
  `[[tool task ${JSON.stringify({ description: "child work", prompt, subagent_type: "general" })}]]`;

async function childEvents(events: AsyncIterable<CanonicalEvent>): Promise<CanonicalEvent[]> {
  const seen: CanonicalEvent[] = [];
  for await (const event of events) {
    seen.push(event);
    if (event.type === "turn.ended") return seen;
  }
  return seen;
}

describe("subagents on the serve-legacy backend", () => {
  it("links the child session's events to the parent's tool call and result", async () => {
    const session = await bridge.createSession();
    const turn = await session.send(`${task("[[reply from the child]]")} [[then parent done]]`, {
      delivery: "queue",
    });
    const events = await collectTurn(turn);
    const started = events.find((event) => event.type === "subagent.started");
    const called = events.find((event) => event.type === "tool.called");
    expect(started?.data).toMatchObject({
      callId: called?.data.callId,
      agent: "general",
      description: "child work",
      childSessionId: expect.stringMatching(/^ses_/),
    });
    const childId = started?.type === "subagent.started" ? started.data.childSessionId : "";
    const child = await childEvents(session.child(childId).events());
    expect(child.every((event) => event.sessionId === childId)).toBe(true);
    expect(child.at(-1)?.data).toMatchObject({ outcome: "completed", text: "from the child" });
    const ended = events.find((event) => event.type === "subagent.ended");
    expect(ended?.data).toMatchObject({ childSessionId: childId });
    expect(ended?.type === "subagent.ended" && ended.data.result).toContain("from the child");
    const succeeded = events.find((event) => event.type === "tool.succeeded");
    expect(succeeded?.data).toMatchObject({ output: expect.stringContaining("from the child") });
    expect(await turn.done()).toMatchObject({ outcome: "completed", text: "parent done" });
    expect(() => session.child("ses_unknown")).toThrow(/not a child session/);
    await session.close();
  });

  it("surfaces a child's ask on the parent's turn, answered through the parent session", async () => {
    const session = await bridge.createSession();
    const file = join(directory, "from-child.txt");
    const write = `[[tool write ${JSON.stringify({ filePath: file, content: "child\n" })}]] [[then child wrote]]`;
    const turn = await session.send(`${task(write)} [[then parent done]]`, { delivery: "queue" });
    let ask: CanonicalEvent | undefined;
    for await (const event of turn.events()) {
      if (event.type === "permission.asked") {
        ask = event;
        break;
      }
    }
    expect(ask?.turnId).toBe(turn.id);
    expect(ask?.data).toMatchObject({ permission: "edit", childSessionId: expect.any(String) });
    expect(ask?.type === "permission.asked" && ask.data.diff).toContain("+child");
    if (ask?.type !== "permission.asked") throw new Error("no ask");
    await session.replyPermission(ask.data.requestId, "once");
    expect(await turn.done()).toMatchObject({ outcome: "completed", text: "parent done" });
    expect(existsSync(file)).toBe(true);
    await session.close();
  });
});
