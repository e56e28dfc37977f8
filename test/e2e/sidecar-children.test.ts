/**
 * End to end: a subagent's child session read over the sidecar by the typed client, against a
 * real `opencode serve` on the serve-legacy backend (1.18.33's /api has no `task` tool) and the
 * scripted model: the parent's `subagent.started` names the child; subscribing to the child's
 * id gives its own turn; its conversation and transcript come through the parent; an id that
 * is no child of the parent is a 404.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BridgeApiError, BridgeClient } from "../../src/client/index.js";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
import { type Sidecar, startSidecar } from "../../src/sidecar/sidecar.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { demoModelServer } from "../../src/testing/demo-model-server.js";
import { trackProcess } from "../support/process-tracker.js";
import { readUntil } from "../support/sidecar-reading.js";
import { NodeWebSocket } from "../support/ws.js";

const TOKEN = "sidecar-children-e2e-token-0123456789";

let directory: string;
let store: SqliteStore;
let bridge: Bridge;
let sidecar: Sidecar;
let client: BridgeClient;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "ocb-sidecar-children-"));
  store = SqliteStore.open(join(directory, "store.db"));
  bridge = await Bridge.start({
    directory,
    store,
    modelServer: demoModelServer,
    backend: "serve-legacy",
  });
  trackProcess(bridge.server.pid, "opencode serve (sidecar children e2e)");
  sidecar = await startSidecar({ bridge, token: TOKEN, store, web: false });
  client = new BridgeClient({ url: sidecar.url, token: TOKEN, WebSocket: NodeWebSocket });
});
afterAll(async () => {
  client?.close();
  await sidecar?.close();
  await bridge?.close();
  store?.close();
  rmSync(directory, { recursive: true, force: true });
});

const task = (prompt: string) =>
  `[[tool task ${JSON.stringify({ description: "child work", prompt, subagent_type: "general" })}]]`;

describe("a subagent's child session over the sidecar (serve-legacy)", () => {
  it("is followed by its id, and read through its parent", async () => {
    const session = await client.createSession({ title: "parent" });
    const sent = await client.send(session.id, {
      text: `${task("[[reply from the child]]")} [[then parent done]]`,
      delivery: "queue",
    });
    const started = (
      await readUntil(client, session.id, (event) => event.type === "subagent.started", {
        what: "subagent.started",
      })
    ).at(-1);
    if (started?.type !== "subagent.started") throw new Error("no subagent.started");
    const childId = started.data.childSessionId;

    // The child's own turn, on a subscription to its id (kept events first, then live).
    const child = await readUntil(client, childId, (event) => event.type === "turn.ended", {
      what: "the child's turn.ended",
    });
    expect(child.every((event) => event.sessionId === childId)).toBe(true);
    expect(child.at(-1)?.data).toMatchObject({ outcome: "completed", text: "from the child" });
    await readUntil(
      client,
      session.id,
      (event) => event.type === "turn.ended" && event.turnId === sent.turnId,
      { what: "the parent's turn.ended" },
    );

    const conversation = await client.childConversation(session.id, childId);
    expect(conversation.sessionId).toBe(childId);
    const reply = conversation.messages.find((message) => message.role === "assistant");
    expect(reply).toMatchObject({ outcome: "completed" });
    expect(reply?.role === "assistant" && reply.parts).toContainEqual(
      expect.objectContaining({ type: "text", text: "from the child" }),
    );
    const transcript = await client.childTranscript(session.id, childId);
    expect(transcript.map((event) => event.type)).toContain("turn.ended");
    expect(transcript.every((event) => event.durable && event.sessionId === childId)).toBe(true);

    // The parent's conversation links the child.
    const parent = await client.conversation(session.id);
    const parts = parent.messages.flatMap((message) =>
      message.role === "assistant" ? message.parts : [],
    );
    expect(parts).toContainEqual(
      expect.objectContaining({ type: "subagent", childSessionId: childId, state: "ended" }),
    );

    const wrong = await client.childConversation(session.id, "ses_not_a_child").catch((e) => e);
    expect(wrong).toBeInstanceOf(BridgeApiError);
    expect(wrong).toMatchObject({ status: 404, code: "not_found" });

    // Released, the parent is kept: its child is still read through it, from the store.
    await client.releaseSession(session.id);
    const kept = await client.childConversation(session.id, childId);
    expect(kept.messages).toEqual(conversation.messages);
  });
});
