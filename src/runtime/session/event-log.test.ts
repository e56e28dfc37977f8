/**
 * The event log on its own: numbering, replays from a seq then live, re-deliveries, a store
 * that fails, and the switch from kept to live events under random interleavings.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FlakyStore } from "../../../test/support/flaky-store.js";
import { recordingLogger } from "../../../test/support/recording-logger.js";
import { AbortError } from "../../errors.js";
import { canonical } from "../../events/build.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import { EventLog } from "./event-log.js";

const SESSION = "ocb_log";

let made = 0;

/**
 * A fresh durable (`text.ended`) or ephemeral (`text.delta`) event of turn `turn`, of part
 * `part` (default: a part of its own, so a delta is of a part that never ends).
 */
function event(durable: boolean, turn = "turn_1", part?: string): CanonicalEvent {
  const n = ++made;
  const origin = {
    sessionId: SESSION,
    turnId: turn,
    at: n,
    native: { backend: "serve" as const, type: "test", id: `evt_${n}` },
  };
  const partId = part ?? `part_${n}`;
  return durable
    ? canonical(origin, 0, "text.ended", { partId, text: `text ${n}` })
    : canonical(origin, 0, "text.delta", { partId, delta: `d${n}` });
}

/** The `delta` of a text delta (undefined for any other event). */
const deltaOf = (e: CanonicalEvent | undefined) =>
  e?.type === "text.delta" ? e.data.delta : undefined;

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
    // The delta's part has ended: its end carries the text, the delta is not given again.
    const before = [event(false, "turn_1", "p"), event(true, "turn_1", "p"), event(true)];
    before.splice(2, 0, event(true));
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
    // The deltas' part ends with the last of them, before the read.
    for (let i = 0; i < 100; i++) await log.appended(event(i % 3 !== 0 || i === 99, "t", "p"));
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

  it("gives a read that joins mid-part the part's text so far as one delta, then its next deltas", async () => {
    const log = new EventLog();
    const started = canonical(
      {
        sessionId: SESSION,
        turnId: "t",
        at: 1,
        native: { backend: "serve", type: "test", id: "s" },
      },
      0,
      "text.started",
      { partId: "p" },
    );
    log.append(started);
    const first = [event(false, "t", "p"), event(false, "t", "p")];
    for (const e of first) log.append(e);
    log.append(event(false, "t", "ended")); // a part that ends before the read: none of it
    log.append(event(true, "t", "ended"));
    const reading = drain(log.read(0));
    await Promise.resolve();
    const next = event(false, "t", "p");
    const end = event(true, "t", "p");
    log.append(next);
    log.append(end);
    log.append(event(false, "t", "late")); // of a part after the read began: as it comes
    log.close();
    const read = await reading;
    expect(read.map((e) => e.type)).toEqual([
      "text.started",
      "text.ended",
      "text.delta",
      "text.delta",
      "text.ended",
      "text.delta",
    ]);
    expect(deltaOf(read[2])).toBe(`${deltaOf(first[0])}${deltaOf(first[1])}`);
    expect(read[2]?.native?.type).toBe("runtime.catch-up");
    expect(read[2]?.turnId).toBe("t");
    expect(ids(read.slice(3, 5))).toEqual(ids([next, end]));
  });

  it("forgets a part's text at its turn's end, and gives a read past what was handed out none", async () => {
    const turnEnded = (n: number) =>
      canonical(
        {
          sessionId: SESSION,
          turnId: "t",
          at: n,
          native: { backend: "serve", type: "test", id: `e${n}` },
        },
        0,
        "turn.ended",
        { outcome: "interrupted" },
      );
    const log = new EventLog();
    log.append(event(false, "t", "cut"));
    log.append(event(true, "t", "other"));
    // A reader that says it has seq 5 of a log at 1 read a commit this log has not handed out.
    const past = drain(log.read(5));
    log.append(turnEnded(1));
    const after = drain(log.read(0));
    await log.close();
    expect((await past).map((e) => e.type)).toEqual(["turn.ended"]);
    expect((await after).map((e) => e.type)).toEqual(["text.ended", "turn.ended"]);
  });

  it("logs a hole in the kept events and reads on", async () => {
    const logger = recordingLogger();
    const log = new EventLog({ logger });
    // An adopted transcript that lacks seq 2.
    log.seed([
      { ...event(true), seq: 1 },
      { ...event(true), seq: 3 },
    ]);
    const reading = drain(log.read(0));
    await log.close();
    expect(seqs(await reading)).toEqual([1, 3]);
    expect(logger.entries).toContainEqual({
      level: "warn",
      message: "the session's kept events have a hole",
      fields: { after: 1, seq: 3 },
    });
  });

  it("a read that begins before the store said its last seq gets a delta linked meanwhile once", async () => {
    const flaky = new FlakyStore();
    const log = new EventLog({ store: { store: flaky.store, sessionId: SESSION } });
    const reading = drain(log.read(0));
    const delta = event(false, "t", "p");
    log.append(delta); // handed out at once: nothing waits for a commit
    const end = event(true, "t", "p");
    await log.appended(end);
    await log.close();
    const read = await reading;
    expect(read.map((e) => [e.type, deltaOf(e)])).toEqual([
      ["text.delta", deltaOf(delta)],
      ["text.ended", undefined],
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
  | { kind: "durable"; part: number }
  | { kind: "ephemeral"; part: number }
  | { kind: "again"; back: number }
  | { kind: "fail"; times: number }
  | { kind: "read"; after: number }
  | { kind: "consume"; reader: number; count: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  // Parts 0 to 3: a durable event ends its part, an ephemeral one is a delta of it.
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("durable" as const), part: fc.nat(3) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("ephemeral" as const), part: fc.nat(3) }) },
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

/**
 * What a read that begins after `appended` is given for the parts under way, by its own
 * model: per part with deltas since its last end, in the order of their first such delta,
 * one delta with the last one's envelope and all their text.
 */
function streamedSoFar(appended: readonly CanonicalEvent[]): CanonicalEvent[] {
  const open = new Map<string, { last: CanonicalEvent; text: string }>();
  for (const e of appended) {
    if (e.type === "text.ended") open.delete(e.data.partId);
    if (e.type !== "text.delta") continue;
    const text = (open.get(e.data.partId)?.text ?? "") + e.data.delta;
    open.set(e.data.partId, { last: e, text });
  }
  return [...open.values()].map(({ last, text }) => ({
    ...last,
    id: `${last.id}~so-far`,
    data: { ...last.data, delta: text },
  })) as CanonicalEvent[];
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
          // The store has said its last seq: a read's switch is where the model puts it (a read
          // that begins earlier switches once it has: its own test below).
          await log.durable();
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
                    : event(step.kind === "durable", "turn_1", `part_${step.part}`);
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
                // The read begins now: what is kept so far is replayed, then what the parts under
                // way streamed (unless it claims more than was handed out), what comes next is live.
                const lastSeq = appended.filter((e) => e.durable).length;
                const expected = [
                  ...appended.filter((e) => e.durable && (e.seq ?? 0) > step.after),
                  ...(step.after <= lastSeq ? streamedSoFar(appended) : []),
                ];
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
          for (const reader of readers) {
            expect(ids(reader.read)).toEqual(ids(reader.expected));
            expect(reader.read.map(deltaOf)).toEqual(reader.expected.map(deltaOf));
          }
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
