/**
 * End to end: a session never goes deaf. The server a bridge is attached to becomes
 * unreachable for longer than the stream reader's old retry budget (10 failed attempts in a
 * row), then reachable again:
 *
 * - behind a proxy that refuses connections (the server runs on and finishes the turn): the
 *   turn that was running ends as it ended upstream, its durable events caught up from the
 *   cursor, and the session's events are exactly those of an uninterrupted run;
 * - stopped for real, then started again on the same port and data dir, with a serve or a
 *   serve-legacy bridge attached: the next send works, with the events an uninterrupted run
 *   gives; the turn that was running (its run died with the server) ended `failed`
 *   (`connection-lost`) once the outage outlasted the bound.
 *
 * The bridges reconnect at a fast pace (`reconnect`: 20 ms doubling to 200 ms), so the outage
 * lasts until the sessions report their 12th failed attempt in a row, a few seconds, instead
 * of the 37 to 49 s that 10 attempts take at the production pace (whose delays
 * src/runtime/reconnect-policy.test.ts and src/transport/http-transport-backoff.test.ts
 * check). The wait for those attempts is bounded well below 37 s: a pace that did not reach
 * the streams fails it.
 *
 * Before the fix every session stopped reading for good once its reader gave up: the running
 * turn waited for the stall watchdog and every later one failed `stalled` (here: the waits for
 * the turn after the outage run out first).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { CanonicalEvent, ConnectionState } from "../../src/events/canonical.js";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
import type { Session } from "../../src/runtime/session/session.js";
import type { Turn } from "../../src/runtime/session/turn.js";
import { findFreePort } from "../../src/server/free-port.js";
import { createIsolatedDirs } from "../../src/server/isolated-dirs.js";
import type { OpencodeServerHandle } from "../../src/server/server-handle.js";
import { startOpencode } from "../../src/server/start-opencode.js";
import { demoProviderConfig } from "../../src/testing/demo-provider.js";
import { startScriptedModel } from "../../src/testing/scripted-model/index.js";
import { paritySignature } from "../parity/signature.js";
import { startBridgeBehindProxy } from "../support/bridge-behind-proxy.js";
import { comparableEvents } from "../support/comparable-events.js";
import { trackProcess } from "../support/process-tracker.js";
import { untilTurnEvent } from "../support/turn-events.js";
import { within } from "../support/within.js";

/** The streams' pace in this test: 10 refused attempts take about 1.5 s instead of 37 to 49 s. */
const RECONNECT = { initialDelayMs: 20, maxDelayMs: 200 };
/** Failed attempts in a row the outage lasts for: beyond the old budget, where readers gave up. */
const OUTAGE_ATTEMPTS = 12;
/** Bound on reaching them: far above the pace's few seconds, below the default pace's 37 s. */
const OUTAGE_BOUND_MS = 30_000;
/** A running turn ends `connection-lost` after this long without its streams. */
const CONNECTION_LOST_AFTER_MS = 3_000;
const MODEL = { providerID: "demo", modelID: "demo-1" };
/** A turn that streams for a few seconds: it is mid-way when the connection goes. */
const FIRST = "[[slow 40 80]]";
const FIRST_TEXT = Array.from({ length: 40 }, (_, index) => `tok${index + 1}`).join(" ");
const SECOND = "[[reply back again]]";

/** Runs the script's two turns one after the other, to the end. */
async function runScript(session: Session): Promise<void> {
  for (const prompt of [FIRST, SECOND]) {
    const turn = await session.send(prompt, { delivery: "queue" });
    expect(await within(turn.done(), "an uninterrupted turn", 60_000)).toMatchObject({
      outcome: "completed",
    });
  }
}

/**
 * Runs the script uninterrupted on a session of its own (the reference), then again on another
 * session up to the first turn's first delta: where the test makes the server go away.
 */
async function untilMidScript(bridge: Bridge) {
  const reference = await bridge.createSession({ title: "uninterrupted" });
  await runScript(reference);
  const session = await bridge.createSession({ title: "interrupted" });
  const changes = connectionChanges(session);
  const turn = await session.send(FIRST, { delivery: "queue" });
  await untilTurnEvent(turn, (event) => event.type === "text.delta");
  return { reference, session, changes, turn };
}

/** The `connection.changed` events the session publishes, as they come. */
function connectionChanges(session: Session): { states: ConnectionState[]; stop(): void } {
  const states: ConnectionState[] = [];
  const reading = new AbortController();
  void (async () => {
    for await (const event of session.events({ signal: reading.signal })) {
      if (event.type === "connection.changed") states.push(event.data);
    }
  })().catch(() => {});
  return { states, stop: () => reading.abort() };
}

/**
 * Until the session has reported `attempts` failed reconnect attempts in a row: the outage has
 * outlasted the old retry budget. Bounded by `OUTAGE_BOUND_MS` (see the header).
 */
async function untilAttempts(changes: { states: ConnectionState[] }, attempts: number) {
  await vi.waitFor(
    () =>
      expect(Math.max(0, ...changes.states.map((state) => state.attempt))).toBeGreaterThanOrEqual(
        attempts,
      ),
    { timeout: OUTAGE_BOUND_MS, interval: 50 },
  );
}

/**
 * Until the session says its streams reach the server again. Not at once when a turn ends: its
 * events may have come on the durable stream while the live stream's reader still waits out
 * its backoff, and only the live stream's connection vouches for both
 * (src/backends/stream-health.ts).
 */
async function untilConnected(changes: { states: ConnectionState[] }): Promise<void> {
  await vi.waitFor(() => expect(changes.states.at(-1)).toMatchObject({ state: "connected" }), {
    timeout: 15_000,
    interval: 100,
  });
}

async function turnEvents(session: Session, turn: Turn): Promise<CanonicalEvent[]> {
  return (await session.transcript()).filter((event) => event.turnId === turn.id);
}

describe("a session never goes deaf", () => {
  it.concurrent("a turn outlives an outage beyond the retry budget and ends as it ended upstream", async () => {
    const setup = await startBridgeBehindProxy({
      model: MODEL,
      store: ":memory:",
      reconnect: RECONNECT,
    });
    const { bridge, proxy } = setup;
    try {
      const { reference, session, changes, turn } = await untilMidScript(bridge);
      await proxy.refuse(); // the server finishes the turn meanwhile; nobody hears it
      await untilAttempts(changes, OUTAGE_ATTEMPTS);
      expect(turn.state).toBe("running");
      await proxy.resume();

      const first = await within(turn.done(), "the turn to end after the outage", 60_000);
      expect(first).toMatchObject({ outcome: "completed", text: FIRST_TEXT });
      const second = await session.send(SECOND, { delivery: "queue" });
      expect(await within(second.done(), "the next turn", 60_000)).toMatchObject({
        outcome: "completed",
        text: "back again",
      });
      // Nothing lost, nothing twice: the same durable events as the uninterrupted run.
      expect(comparableEvents(await session.transcript())).toEqual(
        comparableEvents(await reference.transcript()),
      );
      const seqs = (await session.transcript()).map((event) => event.seq);
      expect(seqs).toEqual(seqs.map((_, index) => index + 1));
      // The outage was told, then its end; the failed attempts went on past the old budget.
      const states = changes.states;
      expect(states[0]).toMatchObject({ state: "reconnecting", attempt: 1 });
      // Attempt 12 is reported only by a reader that did not give up at its 10th failure.
      expect(Math.max(...states.map((state) => state.attempt))).toBeGreaterThanOrEqual(
        OUTAGE_ATTEMPTS,
      );
      await untilConnected(changes);
      expect(session.connection.state).toBe("connected");
      changes.stop();
    } finally {
      await setup.close();
    }
  }, 120_000);

  it.concurrent.each(["serve", "serve-legacy"] as const)(
    "%s: a server stopped beyond the retry budget and started again on its port and data dir: the next send works",
    async (backend) => {
      // A server of its own per backend: a serve and a legacy client of one server disturb
      // each other (1.18 ends the /api live stream again and again), which is not this test's.
      const server = await restartableServer();
      let bridge: Bridge | undefined;
      try {
        bridge = await Bridge.start({
          backend,
          directory: server.directory,
          model: MODEL,
          store: ":memory:",
          attach: { url: server.url, password: server.password },
          connectionLostAfterMs: CONNECTION_LOST_AFTER_MS,
          reconnect: RECONNECT,
        });
        // The script uninterrupted, then again with the server stopped mid-way.
        const { reference, session, changes, turn } = await untilMidScript(bridge);
        const stoppedAt = Date.now();
        await server.stop();
        // The outage outlasts the old retry budget and the connection-lost bound.
        await untilAttempts(changes, OUTAGE_ATTEMPTS);
        await within(turn.done(), "the running turn to end connection-lost", OUTAGE_BOUND_MS);
        const restartedAt = Date.now();
        await server.start();

        const next = await session.send(SECOND, { delivery: "queue" });
        expect(await within(next.done(), "the next turn", 60_000)).toMatchObject({
          outcome: "completed",
          text: "back again",
        });
        // The first turn's run died with the server: it ended after the connection-lost bound,
        // while the server was still away (not at the stall watchdog's bound).
        expect(await turn.done()).toMatchObject({
          outcome: "failed",
          reason: "connection-lost",
          error: { kind: "connection-lost" },
        });
        const firstEnd = (await turnEvents(session, turn)).find(
          (event) => event.type === "turn.ended",
        );
        expect(firstEnd?.at).toBeGreaterThanOrEqual(stoppedAt + CONNECTION_LOST_AFTER_MS);
        expect(firstEnd?.at).toBeLessThan(restartedAt);
        // The next turn's events are those of the same turn in an uninterrupted run (but for its
        // usage: the model is sent the first turn's answer as far as it got).
        const secondId = (await turnIds(reference))[1];
        const referenceSecond = (await reference.transcript()).filter(
          (event) => event.turnId === secondId,
        );
        expect(paritySignature(withoutContextUpdates(await turnEvents(session, next)))).toEqual(
          paritySignature(withoutContextUpdates(referenceSecond)),
        );
        expect(await turnIds(session)).toEqual([turn.id, next.id]);
        const ends = (await session.transcript()).filter((event) => event.type === "turn.ended");
        expect(ends.map((event) => event.turnId)).toEqual([turn.id, next.id]);
        expect(changes.states[0]).toMatchObject({ state: "reconnecting" });
        await untilConnected(changes);
        changes.stop();
      } finally {
        await bridge?.close();
        await server.close();
      }
    },
    120_000,
  );
});

async function turnIds(session: Session): Promise<string[]> {
  return (await session.transcript()).flatMap((event) =>
    event.type === "turn.started" && event.turnId !== undefined ? [event.turnId] : [],
  );
}

/**
 * Without 1.18's `session.next.context.updated` (kept as `native.unknown`), which a server
 * sends, or not, as it (re)loads a session's context: upstream's bookkeeping, not the turn's.
 */
function withoutContextUpdates(events: CanonicalEvent[]): CanonicalEvent[] {
  return events.filter(
    (event) =>
      !(
        event.type === "native.unknown" && event.data.nativeType === "session.next.context.updated"
      ),
  );
}

/** A real server on a fixed port, password and data dir, that the test stops and starts again. */
async function restartableServer() {
  const model = await startScriptedModel();
  const directory = mkdtempSync(join(tmpdir(), "ocb-e2e-work-"));
  const dirs = await createIsolatedDirs();
  const port = await findFreePort("127.0.0.1");
  const password = randomBytes(16).toString("hex");
  let running: OpencodeServerHandle | undefined;
  const start = async () => {
    running = await startOpencode({
      directory,
      config: { ...demoProviderConfig(model.url) },
      port,
      password,
      isolatedDirs: dirs,
    });
    trackProcess(running.pid, "opencode serve (reconnect e2e)");
  };
  await start();
  const stop = async () => {
    const server = running;
    running = undefined;
    await server?.close();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    password,
    directory,
    start,
    stop,
    async close() {
      await stop();
      await model.close();
      await dirs.remove();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
