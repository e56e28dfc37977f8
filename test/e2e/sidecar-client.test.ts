/**
 * End to end: the typed client (`opencode-bridge/client`) against a real sidecar over a real
 * `opencode serve` and the scripted model. Through `BridgeClient` only: a session is created, a
 * tool turn streams, a steer joins it, a queued input becomes the next turn, an interrupt, a
 * model switch, a permission answered (its diff in the ask), a question answered, an image
 * uploaded; two clients of one session see the same events, and an ask one answers is
 * answered for both; a send whose answer is cut on the way back is retried with its key and
 * admitted once; a subscription cut again and again mid-turn ends with the durable events of
 * an uncut one.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BridgeClient } from "../../src/client/index.js";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import type { Sidecar } from "../../src/sidecar/sidecar.js";
import type { ScriptedModel } from "../../src/testing/scripted-model/index.js";
import { type CuttingProxy, startCuttingProxy } from "../support/cutting-proxy.js";
import { type Followed, followSession } from "../support/followed-session.js";
import { useRealSidecar } from "../support/real-sidecar.js";
import { turnGate } from "../support/turn-gate.js";
import { within } from "../support/within.js";
import { NodeWebSocket } from "../support/ws.js";

const TOKEN = "sidecar-client-e2e-token-0123456789";
/** Bound on each wait: a safety net naming what was awaited, never a speed check. */
const WAIT_MS = 60_000;
// A 1x1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);
const QUESTION =
  '[[tool question {"questions":[{"question":"Pick one","header":"Pick","options":[{"label":"a","description":"A"},{"label":"b","description":"B"}]}]}]]';

// Edits ask (the permission test); shell commands run (the tool turns).
const real = useRealSidecar({
  permissions: { edit: "ask", bash: "allow", webfetch: "allow" },
  token: TOKEN,
  label: "sidecar client e2e",
});
let model: ScriptedModel;
let directory: string;
let sidecar: Sidecar;
let client: BridgeClient;
beforeAll(() => {
  ({ model, directory, sidecar, client } = real.current);
});

function follow(sessionId: string, via: BridgeClient = client): Followed {
  return followSession(via, sessionId, WAIT_MS);
}

const types = (events: CanonicalEvent[]) => events.map((event) => event.type);
const endOf = (events: CanonicalEvent[]) => events.find((event) => event.type === "turn.ended");

describe("the typed client against the sidecar", () => {
  it("creates a session; a tool turn streams, every durable event once and in order", async () => {
    const info = await client.createSession({ title: "tool turn" });
    expect(info).toMatchObject({ title: "tool turn", open: true, running: false });
    const followed = follow(info.id);
    expect(await within(followed.subscription.caughtUp, "caught up", WAIT_MS)).toBe(info.lastSeq);
    const sent = await client.send(info.id, {
      text: '[[tool bash {"command":"echo from-the-client"}]] [[then done]]',
      delivery: "queue",
    });
    expect(sent.idempotencyKey).toEqual(expect.any(String));
    const events = await followed.turn(sent.turnId);
    expect(events.find((event) => event.type === "tool.called")?.data).toMatchObject({
      tool: "bash",
      input: { command: "echo from-the-client" },
    });
    expect(events.find((event) => event.type === "tool.succeeded")?.data).toMatchObject({
      output: expect.stringContaining("from-the-client"),
    });
    expect(endOf(events)?.data).toMatchObject({ outcome: "completed", text: "done" });
    // Up to the turn's end (a late event, such as a title, may follow it).
    const endSeq = endOf(events)?.seq ?? Number.NaN;
    const upToEnd = (list: CanonicalEvent[]) =>
      list.filter((event) => event.durable && (event.seq ?? 0) <= endSeq);
    const seqs = upToEnd(followed.events).map((event) => event.seq);
    expect(seqs).toEqual(seqs.map((_, index) => info.lastSeq + index + 1));
    expect(seqs.at(-1)).toBe(endSeq);
    const transcript = await client.transcript(info.id, { after: info.lastSeq });
    expect(upToEnd(transcript).map((event) => event.id)).toEqual(
      upToEnd(followed.events).map((event) => event.id),
    );
    expect((await client.getSession(info.id)).lastSeq).toBeGreaterThanOrEqual(endSeq);
    followed.subscription.close();
  });

  it("a steer joins the running turn; a queued input becomes the next turn", async () => {
    const { id } = await client.createSession({ title: "steer and queue" });
    const followed = follow(id);
    // Held open until both inputs are in: a steer that came after the turn's end would start
    // a turn of its own, and how long a paced reply lasts depends on the machine.
    const gate = turnGate(directory);
    const first = await client.send(id, {
      text: `${gate.directive} [[slow 30 40]]`,
      delivery: "queue",
    });
    await followed.next("tool.called", (event) => event.turnId === first.turnId);
    const steer = await client.send(id, { text: "[[reply steered]]", delivery: "steer" });
    expect(steer.turnId).toBe(first.turnId);
    const queued = await client.send(id, { text: "[[reply second]]", delivery: "queue" });
    expect(queued.turnId).not.toBe(first.turnId);
    gate.open();
    const firstEvents = await followed.turn(first.turnId);
    expect(firstEvents.filter((event) => event.type === "input.delivered")).toHaveLength(2);
    expect(endOf(firstEvents)?.data).toMatchObject({ outcome: "completed", text: "steered" });
    const secondEvents = await followed.turn(queued.turnId);
    expect(endOf(secondEvents)?.data).toMatchObject({ outcome: "completed", text: "second" });
    const ends = followed.events.filter((event) => event.type === "turn.ended");
    expect(ends.map((event) => event.turnId)).toEqual([first.turnId, queued.turnId]);
    followed.subscription.close();
  });

  it("interrupts a running tool; the next send works", async () => {
    const { id } = await client.createSession({ title: "interrupt" });
    const followed = follow(id);
    const running = await client.send(id, {
      text: '[[tool bash {"command":"sleep 30"}]]',
      delivery: "queue",
    });
    await followed.next("tool.called", (event) => event.turnId === running.turnId);
    await client.interrupt(id);
    expect(endOf(await followed.turn(running.turnId))?.data).toMatchObject({
      outcome: "interrupted",
    });
    const next = await client.send(id, { text: "[[reply after]]", delivery: "queue" });
    expect(endOf(await followed.turn(next.turnId))?.data).toMatchObject({
      outcome: "completed",
      text: "after",
    });
    followed.subscription.close();
  });

  it("switches the model for the next turn", async () => {
    const { id } = await client.createSession({ title: "model" });
    const followed = follow(id);
    await client.switchModel(id, { providerID: "demo", modelID: "demo-2" });
    const turn = await client.send(id, { text: "[[reply switched]]", delivery: "queue" });
    const events = await followed.turn(turn.turnId);
    expect(events.find((event) => event.type === "step.started")?.data).toMatchObject({
      model: { providerID: "demo", modelID: "demo-2" },
    });
    expect(endOf(events)?.data).toMatchObject({ outcome: "completed", text: "switched" });
    followed.subscription.close();
  });

  it("a permission ask shows its diff; answered once, the file is written", async () => {
    const { id } = await client.createSession({ title: "permission" });
    const followed = follow(id);
    const file = join(directory, "from-client.txt");
    const turn = await client.send(id, {
      text: `[[tool write ${JSON.stringify({ path: file, content: "hello\n" })}]] [[then wrote]]`,
      delivery: "queue",
    });
    const ask = await followed.next("permission.asked", (event) => event.turnId === turn.turnId);
    expect(ask.data).toMatchObject({ permission: "edit", files: [file] });
    expect(ask.data.diff).toContain("+hello");
    expect((await client.getSession(id)).pendingAsks).toEqual([
      expect.objectContaining({ kind: "permission", requestId: ask.data.requestId }),
    ]);
    await client.replyPermission(id, ask.data.requestId, "once");
    const events = await followed.turn(turn.turnId);
    expect(events.find((event) => event.type === "permission.replied")?.data).toEqual({
      requestId: ask.data.requestId,
      reply: "once",
    });
    expect(endOf(events)?.data).toMatchObject({ outcome: "completed", text: "wrote" });
    expect(readFileSync(file, "utf8")).toBe("hello\n");
    followed.subscription.close();
  });

  it("a question is answered", async () => {
    const { id } = await client.createSession({ title: "question" });
    const followed = follow(id);
    const turn = await client.send(id, {
      text: `${QUESTION} [[then answered]]`,
      delivery: "queue",
    });
    const question = await followed.next("question.asked", (e) => e.turnId === turn.turnId);
    await client.answerQuestion(id, question.data.requestId, [["a"]]);
    const events = await followed.turn(turn.turnId);
    expect(types(events)).toContain("question.replied");
    expect(endOf(events)?.data).toMatchObject({ outcome: "completed", text: "answered" });
    followed.subscription.close();
  });

  it("an uploaded image reaches the model; the transcript keeps no bytes of it", async () => {
    const { id } = await client.createSession({ title: "image" });
    const followed = follow(id);
    const marker = "[[reply seen the pixel]]";
    const turn = await client.send(id, {
      text: marker,
      delivery: "queue",
      attachments: [{ name: "pixel.png", blob: new Blob([PNG], { type: "image/png" }) }],
    });
    const events = await followed.turn(turn.turnId);
    expect(endOf(events)?.data).toMatchObject({ outcome: "completed", text: "seen the pixel" });
    const request = model.requests.find((recorded) => recorded.lastUserText.includes(marker));
    const image = request?.attachments.find((part) => part.mime === "image/png");
    expect(image?.url).toBe(`data:image/png;base64,${PNG.toString("base64")}`);
    const admitted = events.find((event) => event.type === "input.admitted");
    expect(admitted?.data).toMatchObject({ files: [expect.stringContaining("pixel.png")] });
    const transcript = await client.transcript(id);
    expect(JSON.stringify(transcript)).not.toContain(PNG.toString("base64"));
    followed.subscription.close();
  });
});

describe("two typed clients on one session", () => {
  it("see the same events in the same order; an ask answered by one is answered for both", async () => {
    const other = new BridgeClient({ url: sidecar.url, token: TOKEN, WebSocket: NodeWebSocket });
    try {
      const { id } = await client.createSession({ title: "two clients" });
      const mine = follow(id);
      const theirs = follow(id, other);
      await within(theirs.subscription.caughtUp, "the other client caught up", WAIT_MS);
      const file = join(directory, "two-clients.txt");
      // Held open until the steer is in (it must not come after the turn's end).
      const gate = turnGate(directory);
      const turn = await client.send(id, {
        text: `${gate.directive} [[slow 20 30]]`,
        delivery: "queue",
      });
      await theirs.next("tool.called", (event) => event.turnId === turn.turnId);
      // The steer's text is what the model reads next: a write, which asks.
      const steer = await other.send(id, {
        text: `[[tool write ${JSON.stringify({ path: file, content: "two\n" })}]] [[then both]]`,
        delivery: "steer",
      });
      expect(steer.turnId).toBe(turn.turnId);
      gate.open();
      const ask = await theirs.next("permission.asked", (event) => event.turnId === turn.turnId);
      await client.replyPermission(id, ask.data.requestId, "once");
      const replied = await theirs.next("permission.replied");
      expect(replied.data).toEqual({ requestId: ask.data.requestId, reply: "once" });
      expect(endOf(await mine.turn(turn.turnId))?.data).toMatchObject({
        outcome: "completed",
        text: "both",
      });
      await theirs.turn(turn.turnId);
      expect(readFileSync(file, "utf8")).toBe("two\n");
      const upToEnd = (events: CanonicalEvent[]) => {
        const end = events.findIndex((event) => event.type === "turn.ended");
        return events.slice(0, end + 1).map((event) => event.id);
      };
      expect(upToEnd(theirs.events)).toEqual(upToEnd(mine.events));
      await expect(other.replyPermission(id, ask.data.requestId, "once")).rejects.toMatchObject({
        status: 404,
      });
      mine.subscription.close();
      theirs.subscription.close();
    } finally {
      other.close();
    }
  });
});

describe("the typed client through a proxy that cuts", () => {
  let proxy: CuttingProxy;
  let cut: BridgeClient;
  beforeAll(async () => {
    // The sidecar checks Host: the proxy listens on [::1] with the sidecar's own port, so that
    // what the client sends is a loopback name with the right port.
    const port = Number(new URL(sidecar.url).port);
    proxy = await startCuttingProxy(sidecar.url, { host: "::1", port });
    cut = new BridgeClient({
      url: proxy.url,
      token: TOKEN,
      WebSocket: NodeWebSocket,
      socket: { backoff: { initialMs: 20, maxMs: 200 } },
    });
  });
  afterAll(async () => {
    cut?.close();
    await proxy?.close();
  });

  it("a send whose answer is cut is retried with the same key and admitted once", async () => {
    const { id } = await client.createSession({ title: "idempotent send" });
    const followed = follow(id);
    await within(followed.subscription.caughtUp, "caught up", WAIT_MS);
    const answerCut = proxy.cutNextAnswer();
    const sent = await cut.send(id, {
      text: "[[reply once]]",
      delivery: "queue",
      idempotencyKey: "e2e-key-1",
    });
    await within(answerCut, "the cut of the first answer", WAIT_MS);
    const events = await followed.turn(sent.turnId);
    expect(endOf(events)?.data).toMatchObject({ outcome: "completed", text: "once" });
    // Sent again by hand with the key: the same answer, still no second admission.
    const again = await cut.send(id, {
      text: "[[reply once]]",
      delivery: "queue",
      idempotencyKey: "e2e-key-1",
    });
    expect(again.turnId).toBe(sent.turnId);
    const transcript = await client.transcript(id);
    const admitted = transcript.filter((event) => event.type === "input.admitted");
    expect(admitted.map((event) => event.data)).toEqual([
      expect.objectContaining({ text: "[[reply once]]" }),
    ]);
    expect(transcript.filter((event) => event.type === "turn.started")).toHaveLength(1);
    followed.subscription.close();
  });

  it("a subscription cut 20 times mid-turn ends with the durable events of an uncut one", async () => {
    const { id } = await client.createSession({ title: "cut subscription" });
    const uncut = follow(id);
    const cutOne = follow(id, cut);
    await within(cutOne.subscription.caughtUp, "caught up through the proxy", WAIT_MS);
    let cuts = 0;
    let deltas = 0;
    const states: string[] = [];
    const stop = cut.connection.onChange((state) => states.push(state.state));
    // Turns until the 20 cuts are made (at most 8): how many a turn holds depends on how fast
    // the client reconnects on this machine, not on the code (one turn held 10-15 here).
    const turns: string[] = [];
    while (cuts < 20 && turns.length < 8) {
      const { turnId } = await client.send(id, { text: "[[slow 60 40]]", delivery: "queue" });
      turns.push(turnId);
      await within(
        (async () => {
          for (;;) {
            const ended = cutOne.events.some(
              (event) => event.type === "turn.ended" && event.turnId === turnId,
            );
            if (ended) return;
            const seen = cutOne.events.filter((event) => event.type === "text.delta").length;
            if (cuts < 20 && seen >= deltas + 2 && proxy.cut() > 0) {
              cuts += 1;
              deltas = seen;
            }
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
        })(),
        "the cut client's turn end",
        WAIT_MS,
      );
    }
    stop();
    expect(cuts).toBe(20);
    expect(states).toContain("reconnecting");
    const lastTurn = turns[turns.length - 1] ?? "";
    const endSeq = endOf(await uncut.turn(lastTurn))?.seq ?? Number.NaN;
    const durableIds = (events: CanonicalEvent[]) =>
      events.filter((event) => event.durable && (event.seq ?? 0) <= endSeq).map((e) => e.id);
    expect(durableIds(cutOne.events)).toEqual(durableIds(uncut.events));
    expect(durableIds(uncut.events).length).toBeGreaterThan(5);
    uncut.subscription.close();
    cutOne.subscription.close();
  });
});
