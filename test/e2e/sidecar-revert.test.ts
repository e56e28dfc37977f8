import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BridgeApiError, BridgeClient } from "../../src/client/index.js";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import type { Bridge } from "../../src/runtime/bridge/bridge.js";
import type { ScriptedModel } from "../../src/testing/scripted-model/index.js";
import { conversationOf } from "../../src/wire/conversation.js";
import { gitWorktree } from "../support/git-worktree.js";
import { sendPoisonedPrompt } from "../support/poisoned-prompt.js";
import { useRealSidecar } from "../support/real-sidecar.js";
import { readUntil, sentTurn } from "../support/sidecar-reading.js";
import { within } from "../support/within.js";
import { NodeWebSocket } from "../support/ws.js";

/** Bound on a wait: a safety net naming what was awaited, never a speed check. */
const WAIT_MS = 60_000;

const worktree = gitWorktree("ocb-revert-e2e-");
afterAll(() => rmSync(worktree, { recursive: true, force: true }));
const real = useRealSidecar({ web: false, label: "sidecar revert e2e", directory: worktree });
let directory: string;
let bridge: Bridge;
let client: BridgeClient;
let model: ScriptedModel;
beforeAll(() => {
  ({ directory, bridge, client, model } = real.current);
});

/** Sends `text` and waits for its turn's end (read from the session's events). */
async function turn(sessionId: string, text: string): Promise<CanonicalEvent> {
  return (await sent(sessionId, text)).end;
}

/** Sends `text` and reads its turn to its end. */
const sent = (sessionId: string, text: string) => sentTurn(client, sessionId, text);

/**
 * Waits for the `files.changed` of each of `turnIds`: it comes after its turn's end (the bridge
 * diffs the turn's snapshots first), so one could land after an undo taken at once and make two
 * reads of the conversation differ by it (seen on a clean clone).
 */
async function changesAnnounced(sessionId: string, turnIds: readonly string[]): Promise<void> {
  const waiting = new Set(turnIds);
  await readUntil(
    client,
    sessionId,
    (event) => {
      if (event.type === "files.changed" && event.turnId !== undefined)
        waiting.delete(event.turnId);
      return waiting.size === 0;
    },
    { what: "the files.changed of the turns that wrote files" },
  );
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

/** A prompt that has the model write `content` to `name` in the worktree. */
function write(name: string, content: string): string {
  return `[[tool write ${JSON.stringify({ path: join(directory, name), content })}]]`;
}

function fileAt(name: string): string | undefined {
  const path = join(directory, name);
  return existsSync(path) ? readFileSync(path, "utf8") : undefined;
}

describe("undo and redo", () => {
  it("undo puts the files back and sets the messages aside; redo restores both; a second client sees the same", async () => {
    const session = await client.createSession();
    const first = await sent(session.id, write("a.txt", "one"));
    const second = await sent(session.id, `${write("a.txt", "two")} ${write("b.txt", "new")}`);
    await turn(session.id, "[[reply three]]");
    await changesAnnounced(session.id, [first.turnId, second.turnId]);
    expect([fileAt("a.txt"), fileAt("b.txt")]).toEqual(["two", "new"]);
    const before = await client.conversation(session.id);

    await client.revert(session.id, second.inputId);

    expect([fileAt("a.txt"), fileAt("b.txt")]).toEqual(["one", undefined]);
    const reverted = (
      await readUntil(client, session.id, (event) => event.type === "session.reverted", {
        what: "session.reverted",
      })
    ).at(-1);
    if (reverted?.type !== "session.reverted") throw new Error("no session.reverted");
    expect(reverted.data.inputId).toBe(second.inputId);
    const files = reverted.data.files ?? [];
    expect(files.map((file) => file.path).sort()).toEqual(["a.txt", "b.txt"]);
    const undone = await client.conversation(session.id);
    expect(undone.messages).toEqual(before.messages.slice(0, 2));
    expect(undone.undone?.inputId).toBe(second.inputId);
    expect(undone.undone?.messages).toEqual(before.messages.slice(2));
    // A second client, and a replay of the kept events, show the same.
    const other = new BridgeClient({
      url: real.current.sidecar.url,
      token: real.current.token,
      WebSocket: NodeWebSocket,
    });
    try {
      // Both read at one seq: a late event (a clean clone's run saw seq 46 after an undo read
      // at 45) may land between two reads, and changes lastSeq, not what was undone.
      const [mine, theirs] = await within(
        (async () => {
          for (;;) {
            const views = [
              await client.conversation(session.id),
              await other.conversation(session.id),
            ] as const;
            if (views[0].lastSeq === views[1].lastSeq) return views;
          }
        })(),
        "both clients' conversations at one seq",
        WAIT_MS,
      );
      expect(theirs).toEqual(mine);
      expect(mine.messages).toEqual(undone.messages);
      expect(mine.undone).toEqual(undone.undone);
      const kept = await readUntil(other, session.id, (event) => event.seq === mine.lastSeq, {
        what: "the kept events up to the undo",
      });
      expect(conversationOf(kept, session.id)).toEqual(mine);
    } finally {
      other.close();
    }

    await client.unrevert(session.id);

    expect([fileAt("a.txt"), fileAt("b.txt")]).toEqual(["two", "new"]);
    const redone = await client.conversation(session.id);
    expect(redone.messages).toEqual(before.messages);
    expect(redone.undone).toBeUndefined();
    const again = await client.unrevert(session.id).catch((error) => error);
    expect(again).toBeInstanceOf(BridgeApiError);
    expect(again).toMatchObject({ status: 409 });
    expect(String(again.message)).toMatch(/nothing to redo/);
  });

  it("the next input makes an undo final: the model no longer sees what was undone, nothing to redo", async () => {
    const session = await client.createSession();
    await turn(session.id, write("c.txt", "kept"));
    const undoneInput = await sent(
      session.id,
      `${write("c.txt", "undone")} [[reply secret-undone-answer]]`,
    );
    await client.revert(session.id, undoneInput.inputId);
    expect(fileAt("c.txt")).toBe("kept");

    const after = await turn(session.id, "[[reply after the undo]]");

    expect(after.data).toMatchObject({ outcome: "completed", text: "after the undo" });
    const requests = model.requests.filter((request) =>
      request.lastUserText.includes("[[reply after the undo]]"),
    );
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) {
      expect(JSON.stringify(request.messages)).not.toContain("secret-undone-answer");
    }
    const conversation = await client.conversation(session.id);
    expect(conversation.undone).toBeUndefined();
    expect(
      conversation.messages.flatMap((message) => (message.role === "user" ? [message.text] : [])),
    ).toEqual([write("c.txt", "kept"), "[[reply after the undo]]"]);
    const redo = await client.unrevert(session.id).catch((error) => error);
    expect(redo).toMatchObject({ status: 409 });
    expect(fileAt("c.txt")).toBe("kept");
  });
});

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
    // The poisoned turn changed no file: the undo names none.
    expect(transcript.at(-1)?.data).toEqual({ inputId: poisoned, files: [] });
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
    const busyRedo = await client.unrevert(session.id).catch((error) => error);
    expect(busyRedo).toMatchObject({ status: 409 });
    expect(String(busyRedo.message)).toMatch(/is busy .*redo once it has ended/);
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
    expect(String(firstInput.message)).toMatch(/first message.*Fork the session at this input/);
    // Nothing was reverted: the session goes on as it was.
    expect((await turn(session.id, "[[reply goes on]]")).data).toMatchObject({
      outcome: "completed",
    });
    const conversation = await client.conversation(session.id);
    expect(conversation.messages.filter((message) => message.role === "user")).toHaveLength(2);
  });
});
