/**
 * End to end: the sessions open on a serve bridge share one connection to the server's live
 * stream (`/api/event`), real 1.18.33 binary and scripted model, through a proxy that counts
 * the requests open: before, each session held one of its own, and each received (and parsed)
 * every event of every session. Sessions streaming at once still get their own deltas, whole.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { Bridge } from "../../src/runtime/bridge.js";
import type { Session } from "../../src/runtime/session.js";
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
