/**
 * A subagent's child session over the sidecar, with a stand-in bridge (sessions on the
 * in-process backend, whose child events are handed out as a backend's are): the typed client
 * reads the child's conversation and transcript through its parent, subscribes to the child's
 * id for its events, and gets a clear 404 for an id no subagent of the parent has.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { standInBridge, TOKEN } from "../../test/support/sidecar-harness.js";
import { NodeWebSocket } from "../../test/support/ws.js";
import { BridgeApiError, BridgeClient } from "../client/index.js";
import type { CanonicalEvent } from "../events/canonical.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { startSidecar } from "./sidecar.js";

const CHILD = "ses_child_1";
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A sidecar whose one session ran a subagent (`CHILD`), and a client on it. */
async function withSubagent() {
  const directory = mkdtempSync(join(tmpdir(), "ocb-sidecar-children-"));
  const store = SqliteStore.open(":memory:");
  const { bridge, backends } = standInBridge(directory, store);
  const sidecar = await startSidecar({ bridge, token: TOKEN, store, web: false });
  const client = new BridgeClient({ url: sidecar.url, token: TOKEN, WebSocket: NodeWebSocket });
  cleanups.push(async () => {
    client.close();
    await sidecar.close();
    store.close();
    rmSync(directory, { recursive: true, force: true });
  });
  const session = await client.createSession({ title: "parent" });
  const { turnId } = await client.send(session.id, { text: "delegate", delivery: "queue" });
  const backend = backends.get(session.id);
  if (backend === undefined) throw new Error("no backend");
  backend.emit(turnId, "tool.called", { callId: "call_1", tool: "task", input: {} });
  backend.emit(turnId, "subagent.started", {
    callId: "call_1",
    childSessionId: CHILD,
    agent: "general",
    description: "child work",
  });
  const childTurn = "turn_child_1";
  backend.emitChild(CHILD, childTurn, "input.admitted", {
    inputId: "in_child",
    text: "do the child work",
    delivery: "queue",
  });
  backend.emitChild(CHILD, childTurn, "turn.started", { inputId: "in_child" });
  backend.emitChild(CHILD, childTurn, "text.started", { partId: "p1", stepId: "s1" });
  backend.emitChild(CHILD, childTurn, "text.delta", { partId: "p1", delta: "from the " });
  /** The child's text and turn end, as its backend would hand them out. */
  const finishChild = () => {
    backend.emitChild(CHILD, childTurn, "text.ended", {
      partId: "p1",
      stepId: "s1",
      text: "from the child",
    });
    backend.emitChild(CHILD, childTurn, "turn.ended", {
      outcome: "completed",
      text: "from the child",
    });
  };
  return { client, backend, session, childTurn, finishChild, url: sidecar.url };
}

describe("a subagent's child session over the sidecar", () => {
  it("reads its conversation and transcript through the parent", async () => {
    const { client, session, finishChild } = await withSubagent();
    finishChild();

    const conversation = await client.childConversation(session.id, CHILD);
    expect(conversation.sessionId).toBe(CHILD);
    expect(conversation.messages).toEqual([
      expect.objectContaining({ role: "user", text: "do the child work" }),
      expect.objectContaining({
        role: "assistant",
        outcome: "completed",
        parts: [{ type: "text", partId: "p1", text: "from the child" }],
      }),
    ]);
    const transcript = await client.childTranscript(session.id, CHILD);
    expect(transcript.map((event) => event.type)).toEqual([
      "input.admitted",
      "turn.started",
      "text.started",
      "text.ended",
      "turn.ended",
    ]);
    expect(transcript.every((event) => event.sessionId === CHILD)).toBe(true);
    const after = await client.childTranscript(session.id, CHILD, {
      after: transcript[2]?.seq ?? 0,
    });
    expect(after.map((event) => event.type)).toEqual(["text.ended", "turn.ended"]);
    // The parent's own conversation links it.
    const parent = await client.conversation(session.id);
    const assistant = parent.messages.find((message) => message.role === "assistant");
    expect(assistant?.role === "assistant" && assistant.parts).toContainEqual(
      expect.objectContaining({ type: "subagent", childSessionId: CHILD, state: "running" }),
    );
  });

  it("streams the child's events to a client that subscribes to the child's id", async () => {
    const { client, backend, childTurn, finishChild } = await withSubagent();
    const seen: CanonicalEvent[] = [];
    const reading = (async () => {
      for await (const event of client.subscribe(CHILD, { after: 0 })) {
        seen.push(event);
        if (event.type === "text.started") {
          backend.emitChild(CHILD, childTurn, "text.delta", { partId: "p1", delta: "child" });
          finishChild();
        }
        if (event.type === "turn.ended") return;
      }
    })();
    await reading;
    expect(seen.map((event) => event.type)).toEqual([
      "input.admitted",
      "turn.started",
      "text.started",
      "text.delta",
      "text.delta",
      "text.ended",
      "turn.ended",
    ]);
    // Joined mid-part: the text so far comes first, as one catch-up delta, then the rest.
    expect(seen.filter((event) => event.type === "text.delta").map((event) => event.data)).toEqual([
      { partId: "p1", delta: "from the ", catchUp: true },
      { partId: "p1", delta: "child" },
    ]);
    expect(seen.every((event) => event.sessionId === CHILD)).toBe(true);
  });

  it("answers 404 for an id that is no child of the parent, or of any open session", async () => {
    const { client, session, url } = await withSubagent();
    const error = await client.childConversation(session.id, "ses_other").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BridgeApiError);
    expect(error).toMatchObject({ status: 404, code: "not_found" });
    expect((error as Error).message).toMatch(/not a child session of .*subagent\.started/);
    await expect(client.childTranscript("ses_nope", CHILD)).rejects.toMatchObject({ status: 404 });
    // A stream of an id that is neither a session nor a child of an open one.
    const stream = await fetch(`${url}/v1/sessions/ses_nope/events`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(stream.status).toBe(404);
    const body = (await stream.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(/child session is found while its parent/);
  });
});
