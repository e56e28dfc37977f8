/**
 * The event log on its own: numbering, replays from a seq then live, re-deliveries, a store
 * that fails, and the switch from kept to live events under random interleavings.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FlakyStore } from "../../test/support/flaky-store.js";
import { recordingLogger } from "../../test/support/recording-logger.js";
import { AbortError } from "../errors.js";
import { canonical } from "../events/build.js";
import type { CanonicalEvent } from "../events/canonical.js";
import { EventLog } from "./event-log.js";

const SESSION = "ocb_log";

let made = 0;

/** A fresh durable (`text.ended`) or ephemeral (`text.delta`) event of turn `turn`. */
function event(durable: boolean, turn = "turn_1"): CanonicalEvent {
  const n = ++made;
  const origin = {
    sessionId: SESSION,
    turnId: turn,
    at: n,
    native: { backend: "serve" as const, type: "test", id: `evt_${n}` },
  };
  return durable
    ? canonical(origin, 0, "text.ended", { partId: `part_${n}`, text: `text ${n}` })
    : canonical(origin, 0, "text.delta", { partId: `part_${n}`, delta: `d${n}` });
}

/** Reads `count` events from `events`, then stops (the read is returned, not left hanging). */
async function take(events: AsyncIterable<CanonicalEvent>, count: number) {
  const taken: CanonicalEvent[] = [];
  if (count === 0) return taken;
  for await (const event of events) {
    taken.push(event);
    if (taken.length === count) break;
  }
  return taken;
}

/** Everything a read yields until the log closes. */
async function drain(events: AsyncIterable<CanonicalEvent>) {
  const read: CanonicalEvent[] = [];
  for await (const event of events) read.push(event);
  return read;
}

const ids = (events: readonly CanonicalEvent[]) => events.map((e) => e.id);
const seqs = (events: readonly CanonicalEvent[]) => events.map((e) => e.seq);

afterEach(() => {
  vi.useRealTimers();
});

describe("EventLog", () => {
  it("numbers durable events from 1 and passes ephemeral ones on unnumbered", async () => {
    const log = new EventLog();
    const stored = await Promise.all(
      [event(true), event(false), event(true)].map((e) => log.appended(e)),
    );
    expect(stored.map((e) => e?.seq)).toEqual([1, undefined, 2]);
    expect(log.lastSeq).toBe(2);
    expect(seqs(await log.durable())).toEqual([1, 2]);
  });

  it("drops a durable event delivered again (same id), with a store and without", async () => {
    const flaky = new FlakyStore();
    for (const log of [
      new EventLog(),
      new EventLog({ store: { store: flaky.store, sessionId: SESSION } }),
    ]) {
      const first = event(true);
      expect((await log.appended(first))?.seq).toBe(1);
      expect(await log.appended(first)).toBeUndefined();
      expect(log.lastSeq).toBe(1);
      expect(await log.durable()).toHaveLength(1);
    }
  });

  it("replays kept events after a seq, then live ones; old deltas are not replayed", async () => {
    const log = new EventLog();
    const before = [event(true), event(false), event(true), event(true)];
    for (const e of before) log.append(e);
    const reading = drain(log.read(1));
    await Promise.resolve();
    const live = [event(false), event(true)];
    for (const e of live) log.append(e);
    log.close();
    const read = await reading;
    expect(ids(read)).toEqual(ids([before[2], before[3], ...live] as CanonicalEvent[]));
    expect(seqs(read)).toEqual([2, 3, undefined, 4]);
  });

  it("pages a long replay from the store, then goes live with no gap and no duplicate", async () => {
    const flaky = new FlakyStore();
    const log = new EventLog({ store: { store: flaky.store, sessionId: SESSION }, pageSize: 7 });
    for (let i = 0; i < 100; i++) await log.appended(event(i % 3 !== 0));
    const kept = log.lastSeq;
    const reader = log.read(10);
    const first = await reader[Symbol.asyncIterator]().next();
    expect(first.value?.seq).toBe(11);
    log.append(event(true));
    log.append(event(false));
    await log.close();
    const rest = await drain({ [Symbol.asyncIterator]: () => reader[Symbol.asyncIterator]() });
    // The read began before the two live events: every kept one after 10, then both live.
    expect(seqs([first.value as CanonicalEvent, ...rest])).toEqual([
      ...Array.from({ length: kept - 10 }, (_, i) => 11 + i),
      kept + 1,
      undefined,
    ]);
  });

  it("reads an adopted session's seeded events as if appended, and does not store them again", async () => {
    const flaky = new FlakyStore();
    const earlier = [event(true), event(true)];
    const stored = await flaky.inner.append(SESSION, earlier);
    const log = new EventLog({ store: { store: flaky.store, sessionId: SESSION } });
    log.seed(stored);
    expect(log.lastSeq).toBe(2);
    expect(await log.appended(earlier[1] as CanonicalEvent)).toBeUndefined(); // delivered again
    expect((await log.appended(event(true)))?.seq).toBe(3);
    await log.close();
    expect(seqs(await drain(log.read(0)))).toEqual([1, 2, 3]);
    expect(await flaky.inner.lastSeq(SESSION)).toBe(3);
  });

  it("never gives two events the same seq when a store write fails once", async () => {
    const flaky = new FlakyStore();
    const logger = recordingLogger();
    const log = new EventLog({ store: { store: flaky.store, sessionId: SESSION }, logger });
    const live = drain(log.read(0));
    const events = [event(true), event(true), event(false), event(true), event(true)];
    const stored: (CanonicalEvent | undefined)[] = [];
    for (const [index, e] of events.entries()) {
      flaky.failures = index === 1 ? 1 : 0; // the second durable event's write fails
      stored.push(await log.appended(e, String(index)));
    }
    expect(seqs(stored.filter((e) => e?.durable) as CanonicalEvent[])).toEqual([1, 2, 3, 4]);
    // The store has every durable event, each with the seq the live stream gave it.
    const inStore = await flaky.inner.read(SESSION);
    expect(inStore.map((e) => [e.id, e.seq])).toEqual(
      (stored.filter((e) => e?.durable) as CanonicalEvent[]).map((e) => [e.id, e.seq]),
    );
    expect(await flaky.inner.cursor(SESSION)).toBe("4");
    expect(log.unstored).toBe(0);
    // Surfaced: an error when it failed, a note when the store caught up.
    expect(logger.entries.filter((entry) => entry.level === "error")).toHaveLength(1);
    expect(logger.entries.map((entry) => entry.message)).toContain(
      "the store kept the events it had failed to keep",
    );
    await log.close();
    expect(seqs(await live)).toEqual([1, 2, undefined, 3, 4]);
  });

  it("while the store fails, replays still include the events it could not keep", async () => {
    const flaky = new FlakyStore();
    const logger = recordingLogger();
    const log = new EventLog({ store: { store: flaky.store, sessionId: SESSION }, logger });
    await log.appended(event(true));
    flaky.failures = Number.POSITIVE_INFINITY;
    const held = [event(true), event(true)];
    for (const e of held) await log.appended(e);
    expect(log.unstored).toBe(2);
    expect(await log.appended(held[0] as CanonicalEvent)).toBeUndefined(); // delivered again
    expect(seqs(await log.durable())).toEqual([1, 2, 3]);
    expect(ids(await take(log.read(1), 2))).toEqual(ids(held));
    await log.close();
    // Still failing at close: the loss is said, with the seqs the transcript lacks.
    const lost = logger.entries.find((entry) => entry.message.includes("transcript lacks"));
    expect(lost?.fields).toMatchObject({ from: 2, to: 3 });
    expect(await flaky.inner.lastSeq(SESSION)).toBe(1);
  });

  it("writes held events at close when the store works again", async () => {
    const flaky = new FlakyStore();
    const log = new EventLog({ store: { store: flaky.store, sessionId: SESSION } });
    flaky.failures = 1;
    await log.appended(event(true));
    expect(await flaky.inner.lastSeq(SESSION)).toBe(0);
    await log.close();
    expect(await flaky.inner.lastSeq(SESSION)).toBe(1);
  });

  it("says clearly when a replay cannot read the store (closed under it)", async () => {
    const flaky = new FlakyStore();
    const log = new EventLog({ store: { store: flaky.store, sessionId: SESSION } });
    await log.appended(event(true));
    await flaky.inner.close();
    await expect(log.durable()).rejects.toThrow(
      /cannot read the kept events of session ocb_log .*keep it open while its sessions are read/,
    );
  });

  it("ends live reads at close", async () => {
    const log = new EventLog();
    const reading = drain(log.read(0));
    log.append(event(false));
    log.close();
    expect(await reading).toHaveLength(1);
  });

  it("waits for the next event however long it takes (no poll), and rejects on abort", async () => {
    vi.useFakeTimers();
    const log = new EventLog();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 120_000);
    const iterator = log.read(0, controller.signal)[Symbol.asyncIterator]();
    let settled = false;
    const next = iterator.next().finally(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(settled).toBe(false);
    const e = event(false);
    log.append(e);
    expect((await next).value).toBe(e);
    const waiting = iterator.next();
    const rejected = expect(waiting).rejects.toBeInstanceOf(AbortError);
    await vi.advanceTimersByTimeAsync(60_000);
    await rejected;
  });

  it("rejects a replay aborted between pages", async () => {
    const log = new EventLog({ pageSize: 2 });
    for (let i = 0; i < 6; i++) log.append(event(true));
    const controller = new AbortController();
    const read: CanonicalEvent[] = [];
    await expect(async () => {
      for await (const e of log.read(0, controller.signal)) {
        read.push(e);
        if (read.length === 2) controller.abort();
      }
    }).rejects.toBeInstanceOf(AbortError);
    expect(read).toHaveLength(2);
  });
});

type Op =
  | { kind: "durable" }
  | { kind: "ephemeral" }
  | { kind: "again"; back: number }
  | { kind: "fail"; times: number }
  | { kind: "read"; after: number }
  | { kind: "consume"; reader: number; count: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: "durable" as const }) },
  { weight: 4, arbitrary: fc.constant({ kind: "ephemeral" as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("again" as const), back: fc.nat(8) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("fail" as const),
      times: fc.integer({ min: 1, max: 3 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("read" as const), after: fc.nat(60) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("consume" as const),
      reader: fc.nat(),
      count: fc.nat(6),
    }),
  },
);

/** A read under way: the events it yielded so far, and its next one (asked for already). */
interface Reader {
  iterator: AsyncIterator<CanonicalEvent>;
  next: Promise<IteratorResult<CanonicalEvent>>;
  read: CanonicalEvent[];
  expected: CanonicalEvent[];
  done: boolean;
}

async function pull(reader: Reader): Promise<void> {
  const result = await reader.next;
  if (result.done) {
    reader.done = true;
    return;
  }
  reader.read.push(result.value);
  reader.next = reader.iterator.next();
}

describe("EventLog, the switch from kept to live events (property)", () => {
  it("every read gets the kept events after its seq, then every live one: no gap, no duplicate, seqs unique", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { maxLength: 300 }),
        fc.integer({ min: 1, max: 9 }),
        async (ops, pageSize) => {
          const flaky = new FlakyStore();
          const log = new EventLog({ store: { store: flaky.store, sessionId: SESSION }, pageSize });
          const appended: CanonicalEvent[] = [];
          const durableSent: CanonicalEvent[] = [];
          const readers: Reader[] = [];
          for (const step of ops) {
            switch (step.kind) {
              case "durable":
              case "ephemeral":
              case "again": {
                const e =
                  step.kind === "again"
                    ? durableSent.at(-1 - Math.min(step.back, durableSent.length - 1))
                    : event(step.kind === "durable");
                if (e === undefined) break;
                if (e.durable && step.kind !== "again") durableSent.push(e);
                const stored = await log.appended(e);
                if (step.kind === "again") expect(stored).toBeUndefined();
                if (stored === undefined) break;
                appended.push(stored);
                for (const reader of readers) reader.expected.push(stored);
                break;
              }
              case "fail":
                flaky.failures += step.times;
                break;
              case "read": {
                const iterator = log.read(step.after)[Symbol.asyncIterator]();
                // The read begins now: what is kept so far is replayed, what comes next is live.
                const expected = appended.filter((e) => e.durable && (e.seq ?? 0) > step.after);
                readers.push({ iterator, next: iterator.next(), read: [], expected, done: false });
                break;
              }
              case "consume": {
                const reader = readers[step.reader % Math.max(readers.length, 1)];
                for (let i = 0; reader !== undefined && i < step.count; i++) {
                  if (reader.read.length >= reader.expected.length) break;
                  // A due event is there at once (pages are read synchronously): a reader
                  // still waiting a macrotask later has missed it.
                  const tick = new Promise((resolve) => setImmediate(resolve, "waiting"));
                  const first = await Promise.race([reader.next.then(() => "ready"), tick]);
                  expect(first, "a reader waits while events are due").toBe("ready");
                  await pull(reader);
                }
                break;
              }
              default:
                throw new Error(`unknown op ${JSON.stringify(step satisfies never)}`);
            }
          }
          flaky.failures = 0;
          await log.close();
          for (const reader of readers) while (!reader.done) await pull(reader);
          for (const reader of readers) expect(ids(reader.read)).toEqual(ids(reader.expected));
          const durable = appended.filter((e) => e.durable);
          expect(seqs(durable)).toEqual(durable.map((_, i) => i + 1));
          // The store ends with every durable event under the seq the live stream gave it.
          expect((await flaky.inner.read(SESSION)).map((e) => [e.id, e.seq])).toEqual(
            durable.map((e) => [e.id, e.seq]),
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});
