/**
 * End to end: forking a session before one of its inputs, and continuing a session whose
 * OpenCode session was deleted, over the sidecar, against a real `opencode serve` 1.18.33 and the
 * scripted model. Both run on a new OpenCode session, which has none of the conversation: the
 * first input carries it, and the model's request shows that it did (and what it left out).
 *
 * The earlier turns use no `[[…]]` directives: the scripted model reads them anywhere in the
 * last user message, which then holds the earlier conversation too.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { BridgeClient } from "../../src/client/index.js";
import type { Bridge } from "../../src/runtime/bridge/bridge.js";
import type { ScriptedModel } from "../../src/testing/scripted-model/index.js";
import { useRealSidecar } from "../support/real-sidecar.js";
import { readUntil, sentTurn } from "../support/sidecar-reading.js";

const real = useRealSidecar({ web: false, label: "sidecar fork e2e" });
let bridge: Bridge;
let client: BridgeClient;
let model: ScriptedModel;
let directory: string;
beforeAll(() => {
  ({ bridge, client, model, directory } = real.current);
});

/** Sends `text` and reads its turn to its end. */
const sent = (sessionId: string, text: string) => sentTurn(client, sessionId, text);

/** Everything the model was sent for the turn whose input says `marker` (title requests aside). */
function seenByModelFor(marker: string): string {
  const requests = model.requests.filter(
    (request) => request.tools.length > 0 && request.lastUserText.includes(marker),
  );
  expect(requests.length).toBeGreaterThan(0);
  return JSON.stringify(requests.map((request) => request.messages));
}

describe("fork", () => {
  it("a fork before the second input has the first exchange only, the model sees it, the origin is unchanged", async () => {
    const origin = await client.createSession();
    expect(origin.capabilities?.fork).toBe(true);
    await sent(origin.id, "first question ALPHA");
    const second = await sent(origin.id, "second question BRAVO");
    const originBefore = await client.conversation(origin.id);
    expect(originBefore.messages).toHaveLength(4);

    const fork = await client.fork(origin.id, second.inputId);

    expect(fork.id).not.toBe(origin.id);
    expect(fork.forkedFrom).toEqual({ sessionId: origin.id, inputId: second.inputId });
    const forked = await client.conversation(fork.id);
    expect(forked.messages).toEqual(originBefore.messages.slice(0, 2));
    expect(forked.forkedFrom).toEqual({ sessionId: origin.id, inputId: second.inputId });

    const third = await sent(fork.id, "[[reply forked answer]] third question CHARLIE");

    expect(third.end.data).toMatchObject({ outcome: "completed", text: "forked answer" });
    const seen = seenByModelFor("CHARLIE");
    expect(seen).toContain("first question ALPHA");
    expect(seen).toContain("echo: first question ALPHA");
    expect(seen).not.toContain("BRAVO");
    // The conversation shows the input as typed, not what was attached to it.
    const after = await client.conversation(fork.id);
    expect(after.messages.map((message) => message.role === "user" && message.text)).toEqual([
      "first question ALPHA",
      false,
      "[[reply forked answer]] third question CHARLIE",
      false,
    ]);
    expect(await client.conversation(origin.id)).toEqual(originBefore);

    // An input the session does not have: 404.
    const unknown = await client.fork(origin.id, "msg_nope").catch((error) => error);
    expect(unknown).toMatchObject({ status: 404 });
  });
});

describe("continue a session whose OpenCode session is gone", () => {
  it("a send answers 409 naming continue; continued, session.rehydrated joins the history and a turn completes with the earlier conversation", async () => {
    const session = await client.createSession();
    await sent(session.id, "before the loss DELTA");
    // Still there: nothing to continue.
    expect(await client.continueSession(session.id).catch((error) => error)).toMatchObject({
      status: 409,
    });
    await bridge.client.session.delete({ sessionID: session.id }, { directory });

    const refused = await client
      .send(session.id, { text: "lost", delivery: "queue" })
      .catch((error) => error);
    expect(refused).toMatchObject({ status: 409 });
    expect(String(refused.message)).toMatch(/no longer exists.*\/continue/);

    const continued = await client.continueSession(session.id);

    expect(continued.id).toBe(session.id);
    const rehydrated = (
      await readUntil(client, session.id, (event) => event.type === "session.rehydrated", {
        what: "session.rehydrated",
      })
    ).at(-1);
    if (rehydrated?.type !== "session.rehydrated") throw new Error("no session.rehydrated");
    expect(rehydrated.data.previousUpstreamId).toBe(session.id);
    expect(rehydrated.data.upstreamId).not.toBe(session.id);
    const next = await sent(session.id, "[[reply continued answer]] after the loss ECHO");
    expect(next.end.data).toMatchObject({ outcome: "completed", text: "continued answer" });
    const seen = seenByModelFor("after the loss ECHO");
    expect(seen).toContain("before the loss DELTA");
    expect(seen).toContain("echo: before the loss DELTA");
    const conversation = await client.conversation(session.id);
    expect(conversation.messages).toHaveLength(4);
    expect(conversation.rehydrations).toEqual([
      {
        previousUpstreamId: session.id,
        upstreamId: rehydrated.data.upstreamId,
        afterMessages: 2,
      },
    ]);
  });
});
