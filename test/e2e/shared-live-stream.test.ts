/**
 * End to end: the sessions open on a serve bridge share one connection to the server's live
 * stream (`/api/event`), real 1.18.33 binary and scripted model, through a proxy that counts
 * the requests open: before, each session held one of its own, and each received (and parsed)
 * every event of every session. Sessions streaming at once still get their own deltas, whole.
 * An idle session lets its durable stream go after a linger (10 s) and still hears everything:
 * its own next turn, and a turn someone else started on its upstream session.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
import type { Session } from "../../src/runtime/session/session.js";
import { type CountingProxy, startCountingProxy } from "../support/counting-proxy.js";
import { type RealServer, startRealServer } from "../support/real-server.js";
import { within } from "../support/within.js";

const SESSIONS = 12;
const FILLER = "lorem ipsum dolor sit amet ".repeat(16).trim();

let real: RealServer;
let proxy: CountingProxy;
let bridge: Bridge;
beforeAll(async () => {
  real = await startRealServer();
  proxy = await startCountingProxy(real.server.url);
  bridge = await Bridge.start({
    directory: real.directory,
    model: { providerID: "demo", modelID: "demo-1" },
    attach: { url: proxy.url, password: real.server.password ?? "" },
  });
});
afterAll(async () => {
  await bridge?.close();
  await proxy?.close();
  await real?.close();
});

const liveStreams = () => proxy.openPaths().filter((path) => path === "/api/event").length;
const durableStreams = () =>
  proxy.openPaths().filter((path) => /^\/api\/session\/[^/]+\/event$/.test(path)).length;
/** Past the durable stream's linger (10 s), with room for a loaded machine. */
const PAST_LINGER_MS = 30_000;

/** Sends `prompt` and reads the turn to its end: the deltas joined, and the ended text. */
async function streamed(session: Session, prompt: string) {
  const turn = await session.send(prompt, { delivery: "queue" });
  let joined = "";
  for await (const event of turn.events()) {
    if (event.type === "text.delta") joined += event.data.delta;
  }
  return { joined, result: await turn.done() };
}

it("holds one live connection for all the sessions open, and none once they are closed", async () => {
  const sessions: Session[] = [];
  for (let i = 0; i < SESSIONS; i++) sessions.push(await bridge.createSession({ title: `s${i}` }));
  // Each session's first send waits for the live stream: once one has streamed, all can.
  await streamed(sessions[0] as Session, "[[reply ready]]");
  await vi.waitFor(() => expect(liveStreams()).toBe(1), { timeout: 10_000 });
  // Idle, they let their durable streams go: one connection in all.
  await vi.waitFor(() => expect(durableStreams()).toBe(0), { timeout: PAST_LINGER_MS });
  expect(liveStreams()).toBe(1);
  // An idle session's next turn: its durable stream opens again, from where it was.
  const again = await streamed(sessions[1] as Session, "[[reply woken]]");
  expect(again.result).toMatchObject({ outcome: "completed", text: "woken" });
  expect(again.joined).toBe("woken");
  for (const session of sessions) await session.close();
  await vi.waitFor(() => expect(liveStreams()).toBe(0), { timeout: 10_000 });
  // The next session opens it again.
  const next = await bridge.createSession({ title: "after" });
  expect((await streamed(next, "[[reply again]]")).result).toMatchObject({ text: "again" });
  expect(liveStreams()).toBe(1);
  await next.close();
});

it("hands each of the sessions streaming at once its own deltas, whole", async () => {
  const sessions = await Promise.all(
    [0, 1, 2].map((i) => bridge.createSession({ title: `concurrent ${i}` })),
  );
  const results = await within(
    Promise.all(
      sessions.map((session, i) =>
        streamed(session, `[[chunks 200]] [[reply session ${i}: ${FILLER}]]`),
      ),
    ),
    "three turns streaming at once",
    90_000,
  );
  results.forEach(({ joined, result }, i) => {
    expect(result).toMatchObject({ outcome: "completed" });
    expect(result.text).toContain(`session ${i}`);
    expect(joined).toBe(result.text);
  });
  expect(liveStreams()).toBe(1);
  for (const session of sessions) await session.close();
});

it("an idle session whose durable stream was let go hears a turn someone else started", async () => {
  const session = await bridge.createSession({ title: "prompted elsewhere" });
  await streamed(session, "[[reply mine]]");
  await vi.waitFor(() => expect(durableStreams()).toBe(0), { timeout: PAST_LINGER_MS });
  // Another client of the same server prompts the session's upstream session.
  await real.client.v2.session.prompt({
    sessionID: session.upstreamId as string,
    prompt: { text: "[[reply from elsewhere]]" },
    delivery: "queue",
  });
  await vi.waitFor(
    async () => {
      const ends = (await session.transcript()).filter((event) => event.type === "turn.ended");
      expect(ends).toHaveLength(2);
    },
    { timeout: 30_000 },
  );
  const texts = (await session.transcript()).flatMap((event) =>
    event.type === "text.ended" ? [event.data.text] : [],
  );
  expect(texts).toEqual(["mine", "from elsewhere"]);
  const seqs = (await session.transcript()).map((event) => event.seq);
  expect(seqs).toEqual(seqs.map((_, index) => index + 1));
  await session.close();
});
