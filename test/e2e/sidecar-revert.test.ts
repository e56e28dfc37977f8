/**
 * End to end: reverting a session to before an input over the sidecar, against a real
 * `opencode serve` 1.18.33 and the scripted model. The way out of a poisoned session: a text
 * file sent as media (as the bridge did before it inlined text files; here sent straight to
 * OpenCode, as another client still can) fails its turn and every turn after it; reverted to
 * before it, the session takes turns again and its conversation no longer shows it.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { BridgeApiError, type BridgeClient } from "../../src/client/index.js";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import type { Bridge } from "../../src/runtime/bridge/bridge.js";
import type { ScriptedModel } from "../../src/testing/scripted-model/index.js";
import { sendPoisonedPrompt } from "../support/poisoned-prompt.js";
import { useRealSidecar } from "../support/real-sidecar.js";
import { readUntil } from "../support/sidecar-reading.js";

const real = useRealSidecar({ web: false, label: "sidecar revert e2e" });
let directory: string;
let bridge: Bridge;
let client: BridgeClient;
let model: ScriptedModel;
beforeAll(() => {
  ({ directory, bridge, client, model } = real.current);
});

/** Sends `text` and waits for its turn's end (read from the session's events). */
async function turn(sessionId: string, text: string): Promise<CanonicalEvent> {
  const { turnId } = await client.send(sessionId, { text, delivery: "queue" });
  const events = await readUntil(
    client,
    sessionId,
    (event) => event.type === "turn.ended" && event.turnId === turnId,
    { what: `the end of the turn of ${text}` },
  );
  return events.at(-1) as CanonicalEvent;
}

/** Poisons the session (test/support/poisoned-prompt.ts) and waits for the failure. */
async function poison(sessionId: string): Promise<string> {
  const inputId = await sendPoisonedPrompt(bridge.server, directory, sessionId);
  const events = await readUntil(
    client,
    sessionId,
    (event) => event.type === "turn.ended" && event.data.outcome === "failed",
    { what: "the poisoned turn's failure" },
  );
  expect(JSON.stringify(events.at(-1))).toMatch(/does not support media type text\/plain/);
  return inputId;
}

describe("reverting a session to before an input", () => {
  it("takes back a poisoned input: the next turn completes, the conversation drops it", async () => {
    const session = await client.createSession();
    expect(session.capabilities?.revert).toBe(true);
    expect((await turn(session.id, "[[reply zero]]")).data).toMatchObject({ outcome: "completed" });
    const poisoned = await poison(session.id);
    // Poisoned: a plain message fails too.
    expect((await turn(session.id, "[[reply still failing]]")).data).toMatchObject({
      outcome: "failed",
    });

    await client.revert(session.id, poisoned);

    const after = await turn(session.id, "[[reply recovered]]");
    expect(after.data).toMatchObject({ outcome: "completed", text: "recovered" });
    const requests = model.requests.filter((request) =>
      request.lastUserText.includes("[[reply recovered]]"),
    );
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) {
      expect(request.attachments).toEqual([]);
      expect(JSON.stringify(request.messages)).not.toContain("poisoned");
    }
    const conversation = await client.conversation(session.id);
    const texts = conversation.messages.flatMap((message) =>
      message.role === "user" ? [message.text] : [],
    );
    expect(texts).toEqual(["[[reply zero]]", "[[reply recovered]]"]);
    const transcript = await readUntil(
      client,
      session.id,
      (event) => event.type === "session.reverted",
      { what: "the kept session.reverted" },
    );
    expect(transcript.at(-1)?.data).toEqual({ inputId: poisoned });
  });

  it("refuses while a turn runs (409), an unknown input (404), the first input (422)", async () => {
    const session = await client.createSession();
    const first = await client.send(session.id, { text: "[[slow 30 100]]", delivery: "queue" });
    await readUntil(client, session.id, (event) => event.type === "text.delta", {
      what: "the turn streaming",
    });
    const busy = await client.revert(session.id, first.inputId ?? "").catch((error) => error);
    expect(busy).toBeInstanceOf(BridgeApiError);
    expect(busy).toMatchObject({ status: 409 });
    expect(String(busy.message)).toMatch(/is busy .*interrupt it first/);
    await client.interrupt(session.id);
    await readUntil(client, session.id, (event) => event.type === "turn.ended", {
      what: "the interrupted turn's end",
    });

    const unknown = await client
      .revert(session.id, "msg_0123456789abNoSuchMessage1")
      .catch((error) => error);
    expect(unknown, String(unknown.message)).toMatchObject({ status: 404 });

    const firstInput = await client.revert(session.id, first.inputId ?? "").catch((e) => e);
    expect(firstInput).toMatchObject({ status: 422 });
    expect(String(firstInput.message)).toMatch(/first message.*Start a new session/);
    // Nothing was reverted: the session goes on as it was.
    expect((await turn(session.id, "[[reply goes on]]")).data).toMatchObject({
      outcome: "completed",
    });
    const conversation = await client.conversation(session.id);
    expect(conversation.messages.filter((message) => message.role === "user")).toHaveLength(2);
  });
});
