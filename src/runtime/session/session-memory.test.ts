/**
 * What a session keeps in memory, over an in-process backend (no OpenCode: the runtime's own
 * rules). Retention is counted, not weighed: weak references to the events a reader saw, and
 * how many of them a full GC leaves. Bounds are counts of events, never bytes or time.
 */
import { describe, expect, it, vi } from "vitest";
import { stillReachable } from "../../../test/support/collect-garbage.js";
import { FlakyStore } from "../../../test/support/flaky-store.js";
import {
  type InProcessBackend,
  inProcessSession,
} from "../../../test/support/in-process-backend.js";
import { recordingLogger } from "../../../test/support/recording-logger.js";
import { AbortError } from "../../errors.js";
import { canonical } from "../../events/build.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import type { Session } from "./session.js";

const TURNS = 100;
const DELTAS = 50;

/** Follows `session.events()` live until aborted, holding only weak references to what it saw. */
function follow(session: Session) {
  const controller = new AbortController();
  const seen: { ref: WeakRef<CanonicalEvent>; durable: boolean }[] = [];
  const reading = (async () => {
    try {
      for await (const event of session.events({ signal: controller.signal })) {
        seen.push({ ref: new WeakRef(event), durable: event.durable });
      }
    } catch (error) {
      if (!(error instanceof AbortError)) throw error;
    }
  })();
  return {
    seen,
    stop: async () => {
      controller.abort();
      await reading;
    },
  };
}

/**
 * Runs `TURNS` turns of one step of `DELTAS` deltas each, every one read to its end; returns
 * weak references to the turns.
 */
async function runTurns(session: Session, backend: { step(n: number): void; end(): void }) {
  const turns: WeakRef<object>[] = [];
  for (let i = 0; i < TURNS; i++) {
    const turn = await session.send(`turn ${i}`, { delivery: "queue" });
    turns.push(new WeakRef(turn));
    const reading = (async () => {
      let deltas = 0;
      for await (const event of turn.events()) if (event.type === "text.delta") deltas++;
      return deltas;
    })();
    backend.step(DELTAS);
    backend.end();
    // A reader that began while the turn ran gets all of it, deltas too.
    expect(await reading).toBe(DELTAS);
  }
  return turns;
}

describe("Session memory", () => {
  it("keeps no event of an ended turn in memory when it has a store; replays read the store", async () => {
    const flaky = new FlakyStore();
    const { session, backend } = inProcessSession("ocb_memory", { store: flaky.store });
    const first = await session.send("first", { delivery: "queue" });
    backend.step(3);
    backend.end();
    // With a store, the session follows an event once it is committed.
    await first.done();
    const follower = follow(session);
    const turns = await runTurns(session, backend);
    await new Promise((resolve) => setImmediate(resolve));
    await follower.stop();
    const refs = follower.seen.map((entry) => entry.ref);
    // Only the latest few ended turns stay known to the session (16).
    expect(await stillReachable(turns)).toBeLessThanOrEqual(16);
    expect(refs.length).toBeGreaterThan(TURNS * DELTAS);
    // The session is open and idle: of the thousands of events it handled, it holds (about)
    // none; on a log that keeps every event, all of them are still reachable.
    expect(await stillReachable(refs)).toBeLessThanOrEqual(2);

    // Nothing is lost: a replay from the start reads every durable event, numbered 1..n.
    const controller = new AbortController();
    const replayed: CanonicalEvent[] = [];
    const lastSeq = await flaky.inner.lastSeq("ocb_memory");
    for await (const event of session.events({ after: 0, signal: controller.signal })) {
      replayed.push(event);
      if (event.seq === lastSeq) break;
    }
    expect(replayed.map((event) => event.seq)).toEqual(
      Array.from({ length: lastSeq }, (_, i) => i + 1),
    );
    expect(replayed.filter((event) => event.type === "turn.ended")).toHaveLength(TURNS + 1);
    // An ended turn reads its durable events back: all of them, no delta.
    const firstEvents: CanonicalEvent[] = [];
    for await (const event of first.events()) firstEvents.push(event);
    expect(firstEvents.map((event) => event.type)).toEqual([
      "input.admitted",
      "turn.started",
      "step.started",
      "text.started",
      "text.ended",
      "step.ended",
      "turn.ended",
    ]);
    await session.close();
  });

  it("without a store keeps the durable events only: no delta of an ended turn", async () => {
    const { session, backend } = inProcessSession("ocb_memory_nostore");
    const follower = follow(session);
    await runTurns(session, backend);
    await new Promise((resolve) => setImmediate(resolve));
    await follower.stop();
    const deltas = follower.seen.filter((entry) => !entry.durable).map((entry) => entry.ref);
    expect(deltas).toHaveLength(TURNS * DELTAS);
    expect(await stillReachable(deltas)).toBeLessThanOrEqual(1);
    expect(
      (await session.transcript()).filter((event) => event.type === "turn.ended"),
    ).toHaveLength(TURNS);
    await session.close();
  });

  it("never gives two events the same seq when a store write fails once", async () => {
    const flaky = new FlakyStore();
    const logger = recordingLogger();
    const { session, backend } = inProcessSession("ocb_seq", { store: flaky.store, logger });
    const follower: CanonicalEvent[] = [];
    const controller = new AbortController();
    const reading = (async () => {
      for await (const event of session.events({ signal: controller.signal })) {
        if (event.durable) follower.push(event);
        if (event.type === "turn.ended") return;
      }
    })();
    await session.send("hello", { delivery: "queue" });
    flaky.failures = 1; // the step's first event is not stored
    backend.step(2);
    backend.end();
    await reading;
    const live = follower.map((event) => event.seq);
    expect(new Set(live).size).toBe(live.length);
    expect(live).toEqual(live.map((_, i) => i + 1));
    // Held since the failure, they are written with the next events, or at the latest at close.
    await session.close();
    // The store has each of them, under the seq the live stream gave it; the failure was said.
    expect((await flaky.inner.read("ocb_seq")).map((event) => [event.id, event.seq])).toEqual(
      follower.map((event) => [event.id, event.seq]),
    );
    expect(logger.entries.filter((entry) => entry.level === "error")).toHaveLength(1);
  });
});

describe("Session memory: subagents", () => {
  const CHILD = "ses_child";
  const CHILD_EVENTS = 200;

  /** A child session's step as the backend hands it over: a delta and the whole text each. */
  function runChild(backend: InProcessBackend, from: number, count: number): void {
    for (let i = from; i < from + count; i++) {
      const origin = {
        sessionId: CHILD,
        turnId: "turn_child",
        at: i,
        native: { backend: backend.kind, type: "child", id: `child_${i}` },
      };
      const partId = `child/text-${i}`;
      backend.context.childSink(canonical(origin, 0, "text.delta", { partId, delta: `c${i}` }));
      backend.context.childSink(canonical(origin, 1, "text.ended", { partId, text: `c${i}` }));
    }
  }

  it("keeps a child session's events in the store, not in memory; a session opened again reads them", async () => {
    const flaky = new FlakyStore();
    const { session, backend } = inProcessSession("ocb_parent", { store: flaky.store });
    await session.send("delegate", { delivery: "queue" });
    backend.emit(backend.running ?? "", "subagent.started", {
      callId: "call_1",
      childSessionId: CHILD,
      agent: "general",
      description: "child work",
    });
    const controller = new AbortController();
    const seen: WeakRef<CanonicalEvent>[] = [];
    const reading = (async () => {
      try {
        for await (const event of session.child(CHILD).events({ signal: controller.signal })) {
          seen.push(new WeakRef(event));
        }
      } catch (error) {
        if (!(error instanceof AbortError)) throw error;
      }
    })();
    runChild(backend, 0, CHILD_EVENTS);
    // Handed out once committed.
    await vi.waitFor(() => expect(seen).toHaveLength(CHILD_EVENTS * 2));
    controller.abort();
    await reading;
    expect(seen).toHaveLength(CHILD_EVENTS * 2);
    // A child log that keeps its events holds all of them; one on the store, (about) none.
    expect(await stillReachable(seen)).toBeLessThanOrEqual(2);
    expect(await flaky.inner.lastSeq(CHILD)).toBe(CHILD_EVENTS);
    backend.end();
    await session.close();

    // Opened again on the same store (with its kept events, as a bridge opens it): the child's
    // events are there, and new ones follow on once committed.
    const kept = { events: await flaky.inner.read("ocb_parent"), cursor: undefined };
    const again = inProcessSession("ocb_parent", { store: flaky.store, resume: kept });
    expect(await again.session.child(CHILD).transcript()).toHaveLength(CHILD_EVENTS);
    runChild(again.backend, CHILD_EVENTS, 1);
    await vi.waitFor(async () => {
      const seqs = (await again.session.child(CHILD).transcript()).map((event) => event.seq);
      expect(seqs).toEqual(Array.from({ length: CHILD_EVENTS + 1 }, (_, i) => i + 1));
    });
    await again.session.close();
  });
});
