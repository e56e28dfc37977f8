/**
 * End to end: the sidecar's streams against the real `opencode` and the scripted model, with
 * raw WebSocket clients (`ws`, not the typed client) and raw SSE readers. Several clients on
 * one session see the same events; an ask answered by one is answered for all; a client whose
 * connection is cut 50 times during a long turn, resuming from its last seq each time, ends
 * with the durable events of an uncut one; SSE resumes with Last-Event-ID; a client that stops
 * reading loses ephemeral events, then its connection (4008), and nobody else is harmed; a
 * stopping sidecar closes its sockets with 1012.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
import type { SidecarLimits } from "../../src/sidecar/limits.js";
import { type Sidecar, startSidecar } from "../../src/sidecar/sidecar.js";
import { demoModelServer } from "../../src/testing/demo-model-server.js";
import { type CuttingProxy, startCuttingProxy } from "../support/cutting-proxy.js";
import { trackProcess } from "../support/process-tracker.js";
import { messageWith, RawWsClient } from "../support/raw-ws.js";
import { lastSeqOf } from "../support/sidecar-http.js";
import { sseFrames } from "../support/sse-frames.js";
import { within } from "../support/within.js";

const TOKEN = "sidecar-streams-e2e-token-0123456789";
/** Bound on each wait: a safety net naming what was awaited, never a speed check. */
const WAIT_MS = 60_000;

let bridge: Bridge;
let directory: string;
let sidecar: Sidecar;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "ocb-sidecar-streams-"));
  bridge = await Bridge.start({ directory, modelServer: demoModelServer });
  trackProcess(bridge.server.pid, "opencode serve (sidecar streams e2e)");
  sidecar = await startSidecar({ bridge, token: TOKEN });
});
afterAll(async () => {
  await sidecar?.close();
  await bridge?.close();
  rmSync(directory, { recursive: true, force: true });
});

const auth = { authorization: `Bearer ${TOKEN}` };
const wsUrl = (base: string) => `${base.replace(/^http/, "ws")}/v1/ws`;

/** A JSON call to the sidecar's API; the parsed answer (throws on a non-2xx status). */
async function api(base: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(WAIT_MS),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return text === "" ? undefined : JSON.parse(text);
}

async function createSession(base: string, title: string): Promise<string> {
  const info = (await api(base, "POST", "/v1/sessions", { title })) as { id: string };
  return info.id;
}

async function send(base: string, sessionId: string, text: string, delivery = "queue") {
  return (await api(base, "POST", `/v1/sessions/${sessionId}/inputs`, { text, delivery })) as {
    turnId: string;
  };
}

type Message = { type: string; sessionId?: string; event?: CanonicalEvent; seq?: number };

/** A raw client subscribed to `sessionId` from `after`. */
async function subscribed(base: string, sessionId: string, after = 0): Promise<RawWsClient> {
  const client = await RawWsClient.connect(wsUrl(base), { headers: auth });
  client.send({ type: "subscribe", sessionId, after });
  return client;
}

const eventsOf = (client: RawWsClient): CanonicalEvent[] =>
  (client.received as Message[]).flatMap((message) =>
    message.type === "event" && message.event !== undefined ? [message.event] : [],
  );

/** The events a client received up to the durable one of seq `last`, live ones between included. */
const upToSeq = (events: CanonicalEvent[], last: number): CanonicalEvent[] =>
  events.slice(0, events.findIndex((event) => event.seq === last) + 1);

/** Waits until `client` has received the end of turn `turnId`. */
function turnEnded(client: RawWsClient, turnId: string): Promise<number> {
  return client.waitFor(`the end of ${turnId}`, (message) => {
    const event = (message as Message).event;
    return event?.type === "turn.ended" && event.turnId === turnId;
  });
}

/** Waits until `client` has received an event of `type`; returns it. */
async function nextEvent(client: RawWsClient, type: string): Promise<CanonicalEvent> {
  const index = await client.waitFor(type, (message) => (message as Message).event?.type === type);
  const event = (client.received[index] as Message).event;
  if (event === undefined) throw new Error(`no ${type}`);
  return event;
}

const durableOf = (events: CanonicalEvent[]) => events.filter((event) => event.durable);

describe("sidecar streams", () => {
  it("gives two clients of one session the same events in the same order, a steer included", async () => {
    const sessionId = await createSession(sidecar.url, "two clients");
    const first = await subscribed(sidecar.url, sessionId);
    const second = await subscribed(sidecar.url, sessionId);
    await first.waitFor("caught up", messageWith({ type: "caught-up" }));
    await second.waitFor("caught up", messageWith({ type: "caught-up" }));
    const { turnId } = await send(
      sidecar.url,
      sessionId,
      '[[tool bash {"command":"echo one"}]] [[slow 40 20]]',
    );
    await nextEvent(first, "text.delta");
    const steer = await send(sidecar.url, sessionId, "and this too", "steer");
    await within(turnEnded(first, turnId), "the first client's turn end", WAIT_MS);
    await within(turnEnded(second, turnId), "the second client's turn end", WAIT_MS);
    if (steer.turnId !== turnId) {
      await within(turnEnded(first, steer.turnId), "the steer's turn end", WAIT_MS);
      await within(turnEnded(second, steer.turnId), "the steer's turn end", WAIT_MS);
    }
    const types = eventsOf(first).map((event) => event.type);
    expect(types).toContain("text.delta");
    expect(types).toContain("tool.succeeded");
    expect(
      eventsOf(first).some(
        (event) => event.type === "input.admitted" && event.data.delivery === "steer",
      ),
    ).toBe(true);
    // Compared up to one durable event both have: a late one (a title) may still be on its
    // way to one of them.
    const last = lastSeqOf(first);
    await second.waitFor(`seq ${last}`, (message) => (message as Message).event?.seq === last);
    expect(upToSeq(eventsOf(second), last)).toEqual(upToSeq(eventsOf(first), last));
    first.close();
    second.close();
  });

  it("shows an ask answered by one client as answered to the other", async () => {
    const sessionId = await createSession(sidecar.url, "asks");
    const answering = await subscribed(sidecar.url, sessionId);
    const watching = await subscribed(sidecar.url, sessionId);
    const question =
      '[[tool question {"questions":[{"question":"Pick one","header":"Pick","options":[{"label":"a","description":"A"},{"label":"b","description":"B"}]}]}]] [[then picked]]';
    const { turnId } = await send(sidecar.url, sessionId, question);
    const asked = await within(nextEvent(answering, "question.asked"), "the question", WAIT_MS);
    await within(nextEvent(watching, "question.asked"), "the question (other client)", WAIT_MS);
    if (asked.type !== "question.asked") throw new Error("not a question");
    const requestId = asked.data.requestId;
    await api(sidecar.url, "POST", `/v1/sessions/${sessionId}/questions/${requestId}`, {
      answers: [["a"]],
    });
    const replied = await within(nextEvent(watching, "question.replied"), "the reply", WAIT_MS);
    expect(replied.data).toMatchObject({ requestId });
    await within(turnEnded(watching, turnId), "the turn's end", WAIT_MS);
    await within(turnEnded(answering, turnId), "the turn's end", WAIT_MS);
    expect(eventsOf(watching)).toEqual(eventsOf(answering));
    // Answered for all: nobody can answer it again.
    await expect(
      api(sidecar.url, "POST", `/v1/sessions/${sessionId}/questions/${requestId}`, {
        answers: [["b"]],
      }),
    ).rejects.toThrow(/404/);
    answering.close();
    watching.close();
  });

  it("answers each bad message with its error; the socket's subscription and other clients carry on", async () => {
    const sessionId = await createSession(sidecar.url, "bad messages");
    const bystander = await subscribed(sidecar.url, sessionId);
    const noisy = await subscribed(sidecar.url, sessionId);
    await noisy.waitFor("caught up", messageWith({ type: "caught-up" }));
    const { turnId } = await send(sidecar.url, sessionId, "[[slow 30 20]]");
    const table: [unknown, string][] = [
      ["{not json", "bad_json"],
      ["", "bad_json"],
      ["null", "invalid_message"],
      ["[1,2]", "invalid_message"],
      [{ type: "subscribe" }, "invalid_message"],
      [{ type: "dance" }, "invalid_message"],
      [{ type: "subscribe", sessionId, after: -1 }, "invalid_message"],
      [{ type: "subscribe", sessionId, after: "3" }, "invalid_message"],
      [{ type: "subscribe", sessionId, extra: 1 }, "invalid_message"],
      [{ type: "ping", id: { nested: true } }, "invalid_message"],
      [{ type: "subscribe", sessionId }, "already_subscribed"],
      [{ type: "subscribe", sessionId: "ses_missing" }, "not_found"],
      [{ type: "unsubscribe", sessionId: "ses_missing" }, "not_subscribed"],
    ];
    for (const [message, code] of table) {
      const from = noisy.received.length;
      noisy.send(message);
      const index = await noisy.waitFor(
        `the error for ${JSON.stringify(message)}`,
        (answer) => messageWith({ type: "error" })(answer),
        from,
      );
      expect((noisy.received[index] as { error: { code: string } }).error.code).toBe(code);
    }
    await within(turnEnded(noisy, turnId), "the noisy client's turn end", WAIT_MS);
    await within(turnEnded(bystander, turnId), "the bystander's turn end", WAIT_MS);
    expect(eventsOf(noisy)).toEqual(eventsOf(bystander));
    noisy.close();
    bystander.close();
  });

  it("refuses a WebSocket handshake without the token (401) or from a foreign origin (403)", async () => {
    await expect(RawWsClient.connect(wsUrl(sidecar.url))).rejects.toThrow(/HTTP 401/);
    await expect(
      RawWsClient.connect(wsUrl(sidecar.url), {
        headers: { ...auth, origin: "https://evil.example" },
      }),
    ).rejects.toThrow(/HTTP 403/);
  });

  describe("resume", () => {
    let proxy: CuttingProxy;
    beforeAll(async () => {
      proxy = await startCuttingProxy(sidecar.url);
    });
    afterAll(() => proxy?.close());

    /**
     * Follows `sessionId` through the proxy until turn `turnId` ends, cutting the connection
     * (all of the proxy's) every few messages until `cuts` cuts happened, then `afterCuts()`;
     * each reconnect resumes from the last durable seq received. Every durable event must come
     * as the next seq: a gap or a repeat fails at once.
     */
    async function followWithCuts(
      sessionId: string,
      turnId: string,
      cuts: number,
      afterCuts: () => Promise<void>,
    ): Promise<{ durable: CanonicalEvent[]; cuts: number; connections: number }> {
      const durable: CanonicalEvent[] = [];
      let lastSeq = 0;
      let done = 0;
      let connections = 0;
      const host = new URL(sidecar.url).host; // the sidecar checks Host: name itself, not the proxy
      for (;;) {
        const client = await RawWsClient.connect(wsUrl(proxy.url), {
          headers: { ...auth, host },
        });
        connections += 1;
        client.send({ type: "subscribe", sessionId, after: lastSeq });
        // Cut after 0, 1, 2 or 3 messages: before the kept events, among them, in the live ones.
        const cutAfter = connections % 4;
        let read = 0;
        try {
          for (let from = 0; ; from += 1) {
            if (done < cuts && read >= cutAfter) {
              done += proxy.cut() > 0 ? 1 : 0;
              if (done === cuts) await afterCuts();
            }
            const index = await client.waitFor("the next message", () => true, from);
            const message = client.received[index] as Message;
            read += 1;
            if (message.type === "error") throw new Error(`error: ${JSON.stringify(message)}`);
            const event = message.event;
            if (event === undefined || !event.durable) continue;
            if (event.seq !== lastSeq + 1) {
              throw new Error(`after seq ${lastSeq} came seq ${event.seq} (${event.type})`);
            }
            lastSeq = event.seq;
            durable.push(event);
            if (event.type === "turn.ended" && event.turnId === turnId) {
              client.close();
              return { durable, cuts: done, connections };
            }
          }
        } catch (error) {
          if (!(error instanceof Error) || !error.message.startsWith("socket closed")) throw error;
        }
      }
    }

    it("a client cut 50 times during a long turn ends with the durable events of an uncut one", async () => {
      const sessionId = await createSession(sidecar.url, "cuts");
      const uncut = await subscribed(sidecar.url, sessionId);
      const tools = Array.from(
        { length: 4 },
        (_, index) => `[[tool bash {"command":"echo step ${index}"}]]`,
      ).join(" ");
      const { turnId } = await send(sidecar.url, sessionId, `${tools} [[slow 3000 10]]`);
      // After the 50th cut the turn is interrupted: it would otherwise stream for half a minute.
      const interrupt = async () => {
        await api(sidecar.url, "POST", `/v1/sessions/${sessionId}/interrupt`);
      };
      const cut = await within(
        followWithCuts(sessionId, turnId, 50, interrupt),
        "the cut client's turn end",
        120_000,
      );
      await within(turnEnded(uncut, turnId), "the uncut client's turn end", WAIT_MS);
      expect(cut.cuts).toBe(50);
      expect(cut.connections).toBeGreaterThan(50);
      const reference = durableOf(eventsOf(uncut));
      expect(reference.at(-1)).toMatchObject({ type: "turn.ended", turnId });
      expect(cut.durable).toEqual(reference); // 0 lost, 0 duplicated, the same order
      uncut.close();
    });

    it("an SSE reader resumes with Last-Event-ID and ends with the durable events of an uncut one", async () => {
      const sessionId = await createSession(sidecar.url, "sse");
      const uncut = await subscribed(sidecar.url, sessionId);
      const { turnId } = await send(
        sidecar.url,
        sessionId,
        '[[tool bash {"command":"echo sse"}]] [[slow 60 20]]',
      );
      const durable: CanonicalEvent[] = [];
      let lastId: string | undefined;
      let reconnects = 0;
      let ended = false;
      while (!ended) {
        const stop = new AbortController();
        const response = await fetch(`${sidecar.url}/v1/sessions/${sessionId}/events`, {
          headers: { ...auth, ...(lastId === undefined ? {} : { "last-event-id": lastId }) },
          signal: stop.signal,
        });
        expect(response.status).toBe(200);
        let read = 0;
        try {
          for await (const frame of sseFrames(response)) {
            if (frame.kind !== "event" || frame.event !== undefined) continue;
            const event = JSON.parse(frame.data) as CanonicalEvent;
            if (event.durable) {
              expect(frame.id).toBe(String(event.seq));
              durable.push(event);
              lastId = frame.id;
            } else {
              expect(frame.id).toBeUndefined();
            }
            if (event.type === "turn.ended" && event.turnId === turnId) {
              ended = true;
              break;
            }
            // Drop the connection every few events, 5 times.
            if (++read >= 4 && reconnects < 5) {
              reconnects += 1;
              break;
            }
          }
        } finally {
          stop.abort();
        }
      }
      expect(reconnects).toBe(5);
      await within(turnEnded(uncut, turnId), "the uncut client's turn end", WAIT_MS);
      expect(durable).toEqual(durableOf(eventsOf(uncut)));
      uncut.close();
    });
  });

  describe("a slow consumer", () => {
    let small: Sidecar;
    const limits: Partial<SidecarLimits> = {
      streamDropEphemeralBytes: 16 * 1024,
      streamDisconnectBytes: 256 * 1024,
      // The slow client does not answer pings while it is paused: not what this test is about.
      streamHeartbeatTimeoutMs: 600_000,
    };
    beforeAll(async () => {
      small = await startSidecar({ bridge, token: TOKEN, limits });
    });
    afterAll(() => small?.close());

    it("loses ephemeral events, then its connection (4008), while a normal client is unharmed", async () => {
      const sessionId = await createSession(small.url, "slow consumer");
      const slow = await subscribed(small.url, sessionId);
      const normal = await subscribed(small.url, sessionId);
      await slow.waitFor("caught up", messageWith({ type: "caught-up" }));
      await normal.waitFor("caught up", messageWith({ type: "caught-up" }));
      slow.socket.pause(); // stops reading: what the sidecar writes piles up
      // Turns until the sidecar gives up on the slow client (the kernel's socket buffers take
      // a few MB first), each a large durable input and thousands of deltas; the normal client
      // reads each turn to its end. The slow one reads again as soon as the sidecar gave up
      // (its metrics say so), to find out what it missed and why it was closed.
      const metrics = async () =>
        await (await fetch(`${small.url}/metrics`, { headers: auth })).text();
      let gaveUp = false;
      let done = false;
      const watch = (async () => {
        while (!gaveUp && !done) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          gaveUp = /ocb_slow_consumer_disconnects_total\{transport="ws"\} 1/.test(await metrics());
        }
        slow.socket.resume();
      })();
      const tokens = 3000;
      const filler = `${"lorem ipsum ".repeat(16_000)} [[slow ${tokens} 0]]`;
      const turns: string[] = [];
      try {
        for (let turn = 0; turn < 12 && !gaveUp; turn++) {
          const { turnId } = await send(small.url, sessionId, filler);
          turns.push(turnId);
          await within(turnEnded(normal, turnId), `the normal client's turn ${turn}`, WAIT_MS);
        }
      } finally {
        done = true;
        await watch;
      }
      expect(gaveUp).toBe(true);
      const closed = await within(slow.closed, "the slow client's close", WAIT_MS);
      expect(closed.code).toBe(4008);
      const slowDurable = durableOf(eventsOf(slow));
      const seqs = slowDurable.map((event) => event.seq);
      expect(seqs).toEqual(seqs.map((_, index) => index + 1)); // no durable event skipped
      expect(closed.reason).toBe(`slow consumer: resume from seq ${seqs.at(-1)}`);
      const dropped = (slow.received as Message[]).filter((message) => message.type === "dropped");
      expect(dropped.length).toBeGreaterThan(0);
      // The normal client got everything: each turn's deltas join to its whole text.
      const normalEvents = eventsOf(normal);
      expect((normal.received as Message[]).some((message) => message.type === "dropped")).toBe(
        false,
      );
      for (const turnId of turns) {
        const text = normalEvents.flatMap((event) =>
          event.type === "text.delta" && event.turnId === turnId ? [event.data.delta] : [],
        );
        const ended = normalEvents.find(
          (event) => event.type === "turn.ended" && event.turnId === turnId,
        );
        expect(ended?.type === "turn.ended" && ended.data.text).toBe(text.join(""));
        expect(text.join("")).toMatch(new RegExp(`^tok1 tok2 .* tok${tokens}$`));
      }
      const counted = await metrics();
      expect(counted).toMatch(/ocb_slow_consumer_disconnects_total\{transport="ws"\} 1/);
      expect(counted).toMatch(/ocb_events_dropped_total\{transport="ws"\} [1-9]/);
      normal.close();
    }, 300_000);

    it("closes its sockets with 1012 when it stops, telling clients to resume", async () => {
      const sessionId = await createSession(small.url, "stopping");
      const client = await subscribed(small.url, sessionId);
      await client.waitFor("caught up", messageWith({ type: "caught-up" }));
      await small.close();
      expect(await within(client.closed, "the close", WAIT_MS)).toEqual({
        code: 1012,
        reason: "sidecar stopping: resume from your last seq",
      });
    });
  });
});
