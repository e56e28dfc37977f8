/**
 * End to end: removing a queued input before delivery over the sidecar, against a real
 * `opencode serve` and the scripted model. On serve-legacy (no queue of its own: the runtime
 * holds queued inputs) a held input is taken back: `input.cancelled`, its turn ends
 * `interrupted` (`cancelled`), the running turn finishes as it would, and the next queued input
 * runs in its place, the removed one never reaching the model. On serve (OpenCode 1.18's own
 * queue) `capabilities.cancelQueued` is false and the route answers 422.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { BackendKind } from "../../src/backends/backend.js";
import { BridgeApiError } from "../../src/client/index.js";
import { type RealSidecar, startRealSidecar } from "../support/real-sidecar.js";
import { readUntil } from "../support/sidecar-reading.js";
import { turnGate } from "../support/turn-gate.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A real sidecar of its own on `backend` (the two tests need one each), closed after the test. */
async function sidecarOn(backend: BackendKind): Promise<RealSidecar> {
  const real = await startRealSidecar({
    backend,
    web: false,
    label: `sidecar cancel e2e, ${backend}`,
  });
  cleanups.push(real.close);
  return real;
}

describe("removing a queued input", () => {
  it("serve-legacy: the held input never runs; the running turn and the next one do", async () => {
    const { client, directory } = await sidecarOn("serve-legacy");
    const session = await client.createSession();
    expect(session.capabilities?.cancelQueued).toBe(true);
    // Held open until the input is removed: a removal after its turn began is too late.
    const gate = turnGate(directory);
    const running = await client.send(session.id, {
      text: `${gate.directive} [[slow 40 100]]`,
      delivery: "queue",
    });
    await readUntil(client, session.id, (event) => event.type === "tool.called", {
      what: "the first turn running",
    });
    const removed = await client.send(session.id, {
      text: "[[reply removed one]]",
      delivery: "queue",
    });
    const next = await client.send(session.id, { text: "[[reply kept one]]", delivery: "queue" });
    expect(removed.inputId).toEqual(expect.any(String));
    await client.cancelInput(session.id, removed.inputId ?? "");
    gate.open();

    const events = await readUntil(
      client,
      session.id,
      (event) => event.type === "turn.ended" && event.turnId === next.turnId,
      { what: "the next turn's end" },
    );
    const ends = events.filter((event) => event.type === "turn.ended");
    expect(ends.map((event) => [event.turnId, event.data])).toEqual([
      [removed.turnId, expect.objectContaining({ outcome: "interrupted", reason: "cancelled" })],
      [running.turnId, expect.objectContaining({ outcome: "completed" })],
      [next.turnId, expect.objectContaining({ outcome: "completed", text: "kept one" })],
    ]);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "input.cancelled",
        data: { inputId: removed.inputId, reason: "cancelled" },
      }),
    );
    const texts = events.flatMap((event) => (event.type === "text.ended" ? [event.data.text] : []));
    expect(texts).not.toContain("removed one");
    const conversation = await client.conversation(session.id);
    expect(conversation.messages).toContainEqual(
      expect.objectContaining({ role: "user", inputId: removed.inputId, cancelled: "cancelled" }),
    );
    // Taken back once: again it is a conflict.
    const again = await client.cancelInput(session.id, removed.inputId ?? "").catch((e) => e);
    expect(again).toMatchObject({ status: 409, code: "conflict" });
  });

  it("serve: OpenCode keeps the queue, so the route says it cannot (422)", async () => {
    const { client } = await sidecarOn("serve");
    const session = await client.createSession();
    expect(session.capabilities?.cancelQueued).toBe(false);
    await client.send(session.id, { text: "[[slow 20 100]]", delivery: "queue" });
    const queued = await client.send(session.id, { text: "later", delivery: "queue" });
    const refused = await client
      .cancelInput(session.id, queued.inputId ?? "in_unknown")
      .catch((e) => e);
    expect(refused).toBeInstanceOf(BridgeApiError);
    expect(refused).toMatchObject({ status: 422, code: "unsupported" });
    expect(refused.message).toMatch(/server's own queue/);
    await client.interrupt(session.id);
  });
});
